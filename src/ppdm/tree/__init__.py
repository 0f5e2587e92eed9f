"""C4.5 decision trees (Release 8, as Weka's J48 implements it), and trees learnt from a
release itself.

C4.5: ``criterion``, ``splitter``, ``builder``, ``level``, ``pruning``, ``storage``,
``classifier``, ``export``, ``compare``, ``plot``; from a release: the ``release_*``
modules (docs/release_learners.md maps them).

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
