"""The log rule catalog and the engine that runs it."""
