"""Parsers for Slurm's output (JSON where the installed Slurm offers it, fixed text formats
otherwise) and the small models the Slurm checks reason about. No I/O happens here."""
