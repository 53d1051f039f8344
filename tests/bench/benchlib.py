# SPDX-License-Identifier: Apache-2.0
"""What the Python bench drivers share: the repository root, finding the `fathom` executable, the launcher's
rank prefix."""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# `fathom launch` prefixes each worker's lines with "[rankN]: ".
RANK_PREFIX = re.compile(r"^\[rank(\d+)\]: ?")


class BenchError(Exception):
    pass


def run_group(cmd, env=None, timeout=None, cwd=None):
    """subprocess.run(cmd, capture_output=True, text=True) in a session of its own: past `timeout` the whole process
    group is killed, not only `cmd`, so the ranks a launcher or torch.multiprocessing spawned do not outlive a hung
    run and skew the next one (a stuck rank spins a core). Raises subprocess.TimeoutExpired then, as run() does."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def find_fathom(explicit):
    """The `fathom` to measure: --fathom if given (it must be an executable file), else build/bench, build/default,
    any other build/*/bin/fathom (newest first), then PATH. Raises BenchError naming what was looked for."""
    if explicit:
        path = os.path.abspath(explicit)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            raise BenchError(f"--fathom {explicit}: not an executable file")
        return path
    preferred = [os.path.join(ROOT, "build", d, "bin", "fathom") for d in ("bench", "default")]
    others = sorted(glob.glob(os.path.join(ROOT, "build", "*", "bin", "fathom")), key=os.path.getmtime, reverse=True)
    for path in preferred + others:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    on_path = shutil.which("fathom")
    if on_path:
        return on_path
    raise BenchError("no fathom binary: build one (cmake --preset default && cmake --build build/default --target fathom, "
                     "see docs/building.md) or pass --fathom PATH")


def find_torch_python(explicit, probe="import torch; print(torch.__version__)"):
    """An interpreter that can import torch: --python if given, this one, then Debian's /usr/bin/python3, then
    python3 on PATH. Returns (path, what `probe` printed, stripped). Raises BenchError saying how to get one."""
    candidates = [explicit] if explicit else [sys.executable, "/usr/bin/python3", shutil.which("python3")]
    for py in candidates:
        if not py or not os.path.exists(py):
            continue
        done = subprocess.run([py, "-c", probe], capture_output=True, text=True, timeout=120)
        if done.returncode == 0:
            return py, done.stdout.strip()
    if explicit:
        raise BenchError(f"--python {explicit}: cannot import torch")
    raise BenchError("no Python with torch: install Debian's python3-torch (sudo installer/install-deps.sh "
                     "--groups bench) or pass --python PATH to an interpreter that has torch")
