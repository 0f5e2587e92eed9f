"""C4.5 decision trees (Release 8, as Weka's J48 implements it).

Modules: ``criterion`` (gain, gain ratio on count arrays), ``splitter``
(threshold and multiway split search), ``storage`` (array-based tree),
``builder`` (growing), ``pruning`` (pessimistic pruning, collapse, subtree
raising), ``classifier`` (the scikit-learn estimator), ``export`` (J48 text,
rules), ``compare`` (similarity of two trees) and ``plot`` (matplotlib drawing).
Trees learnt from a release: ``release_base`` (the learners' common base),
``release_coding`` (codes and release data), ``release_split``, ``release_builder``,
``release_nb`` (naive Bayes leaves), ``release_storage`` (``CodeTree``),
``release_tree`` and ``release_forest`` (the
estimators) and ``release_scoring`` (accuracy on the original data, estimated from a
perturbed fold).

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning. Morgan Kaufmann.
"""

from .classifier import C45Classifier
from .compare import TreeComparison, compare_trees
from .criterion import entropy, gain_ratio, info_gain, split_info
from .export import Condition, Rule, export_text, extract_rules, format_rules
from .plot import plot_tree
from .release_forest import ReleaseForestClassifier
from .release_scoring import release_accuracy, release_accuracy_score, release_accuracy_se
from .release_storage import CodeTree
from .release_tree import ReleaseTreeClassifier
from .storage import Tree

__all__ = [
    "C45Classifier",
    "CodeTree",
    "Condition",
    "ReleaseForestClassifier",
    "ReleaseTreeClassifier",
    "Rule",
    "Tree",
    "TreeComparison",
    "compare_trees",
    "entropy",
    "export_text",
    "extract_rules",
    "format_rules",
    "gain_ratio",
    "info_gain",
    "plot_tree",
    "release_accuracy",
    "release_accuracy_score",
    "release_accuracy_se",
    "split_info",
]
