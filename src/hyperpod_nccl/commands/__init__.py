"""Subcommands of the CLI; each module exposes register(subparsers)."""
