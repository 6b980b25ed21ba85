"""``python -m deepcrawl`` runs the command line."""

from deepcrawl.cli import main

main()
