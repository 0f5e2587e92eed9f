"""``python -m ppdm``: the command line."""

from .cli import script

script()
