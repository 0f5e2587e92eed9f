"""``python -m ppdm``: the command line."""

from .cli import main

main()
