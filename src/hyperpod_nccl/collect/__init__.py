"""Collectors: the only code that does I/O against clusters. They fill a Snapshot and never
decide anything; a failure becomes `snapshot.missing(name, reason)`."""
