"""Suggested commands: where they run, how values the run did not learn become shell
expansions, and the read-only command every FAIL and WARN carries. The tool prints these
commands and never runs them."""
