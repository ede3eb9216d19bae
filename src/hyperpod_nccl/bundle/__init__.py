"""Escalation bundles: one redacted (optionally obfuscated) archive of what a run saw and
found, with a support-case summary, safe to hand to a vendor; and re-analysis of such an
archive offline. Redaction lives in `hyperpod_nccl.redaction`."""
