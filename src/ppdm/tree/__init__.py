"""C4.5 decision trees (Release 8, as Weka's J48 implements it).

Modules: ``criterion`` (gain, gain ratio on count arrays), ``splitter``
(threshold and multiway split search), ``storage`` (array-based tree),
``builder`` (growing), ``pruning`` (pessimistic pruning, collapse, subtree
raising), ``classifier`` (the scikit-learn estimator), ``export`` (J48 text,
rules) and ``compare`` (similarity of two trees).

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning. Morgan Kaufmann.
"""

from .classifier import C45Classifier
from .criterion import entropy, gain_ratio, info_gain, split_info
from .export import Condition, Rule, export_text, extract_rules, format_rules
from .storage import Tree

__all__ = [
    "C45Classifier",
    "Condition",
    "Rule",
    "Tree",
    "entropy",
    "export_text",
    "extract_rules",
    "format_rules",
    "gain_ratio",
    "info_gain",
    "split_info",
]
