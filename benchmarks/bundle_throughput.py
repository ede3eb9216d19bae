"""What does `--save-bundle` cost on a big log, against baselines measured in the same run?

Takes the mixed log `logs_throughput.py` generates (real NCCL INFO lines, training progress,
rare real failures), adds seeded secrets every SECRET_EVERY lines, then times, median of N
runs (the machine may be shared: each figure is set against a baseline of the same run):

  analysis:   hyperpod-nccl logs LOG --format json
  tar czf:    tar czf OUT LOG                       (bundling it raw, no scrubbing)
  redacted:   hyperpod-nccl logs LOG --format json --save-bundle OUT
  obfuscated: ... --save-bundle OUT --obfuscate
  before:     with `--before REV`, the redacted and obfuscated bundles again with the sources
              of git revision REV (the code before a change), run right after ours

Each run of N is one round of every kind in turn, so that all of them see the same load.

and prints each time, MB/s, peak RSS, the ratios redacted/analysis, redacted/tar,
obfuscated/analysis, and what saving the bundle adds to the analysis, as MB/s of the log
(the bundle's own cost: reading, redacting, obfuscating and compressing it). It also checks
that no seeded secret is left in the redacted bundle. Always exits 0 unless a run fails: it
measures, the tests assert.

Last measured (2-core shared machine, `--size-mb 50 --runs 3 --before e491d01`, 64 MB log,
load 1.5 to 1.8): obfuscated 1.32 s beyond the analysis (48 MB/s) against 1.49 s (43 MB/s)
before each learning pass read only its own lines; redacted 0.65 s beyond (98 MB/s). With
`--runs 5 --before 7e13149` (load 0.9 to 1.3; every kind once a round): obfuscated 1.24 s beyond
(51 MB/s) against 1.40 s (46 MB/s) before the NCCL pass read its lines backwards. The README's
speed table has the rest.

    .venv/bin/python benchmarks/bundle_throughput.py [--size-mb 200] [--runs 3] [--before REV]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "bundle"))

from bundle_helpers import make_secrets, seeded_log  # noqa: E402
from logs_throughput import mixed_log, timed  # noqa: E402

SECRET_EVERY = 200_000  # lines


def seeded(source: Path, target: Path, secrets: dict[str, str]) -> int:
    """Copy `source` with a block of secrets after every SECRET_EVERY lines; how many blocks."""
    blocks = 0
    block = seeded_log(secrets, "")
    with open(source, encoding="utf-8", errors="replace") as src, open(target, "w") as out:
        for n, line in enumerate(src, start=1):
            out.write(line)
            if n % SECRET_EVERY == 0:
                out.write(block)
                blocks += 1
    return blocks


def leftovers(bundle: Path, secrets: dict[str, str]) -> int:
    needles = [v.encode() for k, v in secrets.items() if k != "private_key"]
    found = 0
    with tarfile.open(bundle, "r:gz") as tar:
        for member in tar:
            stream = tar.extractfile(member)
            data = stream.read() if stream else b""
            found += sum(1 for needle in needles if needle in data)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data-dir", default=str(ROOT / ".bench"))
    parser.add_argument("--before", help="git revision whose sources to time as well")
    args = parser.parse_args()

    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    base = mixed_log(data_dir, args.size_mb)
    secrets = make_secrets()
    log = data_dir / f"mixed-{args.size_mb}MB-secrets.log"
    blocks = seeded(base, log, secrets)
    size_mb = log.stat().st_size / 1e6
    out_dir = Path(tempfile.mkdtemp(prefix="hpn-bench-"))
    cli = [sys.executable, "-m", "hyperpod_nccl.cli", "logs", str(log), "--format", "json"]

    env = None
    if args.before:  # the older sources first on the path, the rest as ours have it
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.before, "src"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "x", "-C", str(out_dir)], input=archive, check=True)
        path = [str(out_dir / "src"), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
        env = {**os.environ, "PYTHONPATH": ":".join(path)}

    kinds: dict[str, tuple[str, list[str], dict[str, str] | None]] = {
        "analysis": ("analysis", cli, None),
        "tar czf": ("tar", ["tar", "czf", "OUT", "-C", str(log.parent), log.name], None),
        "redacted": ("redacted", [*cli, "--save-bundle", "OUT"], None),
        "obfuscated": ("obfuscated", [*cli, "--save-bundle", "OUT", "--obfuscate"], None),
    }
    if env is not None:
        kinds["redacted, before"] = ("before-r", [*cli, "--save-bundle", "OUT"], env)
        kinds["obfuscated, before"] = (
            "before-o",
            [*cli, "--save-bundle", "OUT", "--obfuscate"],
            env,
        )
    times: dict[str, list[float]] = {name: [] for name in kinds}
    peaks: dict[str, int] = dict.fromkeys(kinds, 0)

    try:
        for i in range(args.runs):  # each kind once a round: all see the same machine load
            for name, (stem, argv_for, run_env) in kinds.items():
                target = out_dir / f"{stem}-{i}.tar.gz"
                argv = [a.replace("OUT", str(target)) for a in argv_for]
                elapsed, rss, _ = timed(argv, run_env)
                times[name].append(elapsed)
                peaks[name] = max(peaks[name], rss)
        results = {name: (statistics.median(times[name]), peaks[name]) for name in kinds}
        sizes = {n: (out_dir / f"{n}-0.tar.gz").stat().st_size / 1e6 for n in ("tar", "redacted")}
        left = leftovers(out_dir / "redacted-0.tar.gz", secrets)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)

    print(f"input: {log.name}, {size_mb:,.0f} MB, {blocks} blocks of {len(secrets)} seeded secrets")
    for name, (seconds, rss) in results.items():
        print(
            f"{name:>18}: median {seconds:7.2f} s  {size_mb / seconds:7.1f} MB/s  peak RSS {rss / 1024:6.0f} MB"
        )
    print(f"sizes: tar czf {sizes['tar']:.1f} MB, redacted bundle {sizes['redacted']:.1f} MB")
    analysis, tar = results["analysis"][0], results["tar czf"][0]
    redacted, obfuscated = results["redacted"][0], results["obfuscated"][0]
    print(f"ratio redacted/analysis:   {redacted / analysis:.2f}")
    print(f"ratio redacted/tar czf:    {redacted / tar:.2f}")
    print(f"ratio obfuscated/analysis: {obfuscated / analysis:.2f}")
    for name in [n for n in results if n.startswith(("redacted", "obfuscated"))]:
        added = results[name][0] - analysis
        rate = f"{size_mb / added:.0f} MB/s" if added > 0 else "n/a"
        print(f"{name} bundle beyond the analysis: {added:.2f} s ({rate})")
    if "redacted, before" in results:
        print(f"ratio redacted before/after: {results['redacted, before'][0] / redacted:.2f}")
    print(f"seeded secrets left in the redacted bundle: {left}")
    os.remove(log)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
