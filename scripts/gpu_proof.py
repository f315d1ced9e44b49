#!/usr/bin/env python3
"""The GPU proof, run on the device machine from an unpacked carry (scripts/gpu-check run).

Steps, in order, each under its own time limit inside one budget:
  env       what the machine has: GPU, driver, nvcc, the Python with torch, library lookup
  libs      every carried binary's shared libraries resolve (carry, CUDA, NCCL wheel, system)
  tests     the CTest "cuda" tests (one GPU; tests that need two skip), one binary per job
  memcheck  compute-sanitizer memcheck over the same binaries with caching off (preflight first)
  racecheck, synccheck  on Ember's own kernels (test_cuda_kernels)
  bench     bench/gpu_bench.py: Ember against PyTorch on the same card
  python    (a call of its own: --steps env,libs,python) ember._C built here for this machine's
            Python against the carried libember, then the Python suite (tests/python)
At most 8 files go to --out: summary.txt (one "STEP <name> <VERDICT> <seconds>s" line per step and
a final "RESULT" line), tests.xml (JUnit), gpu_bench.json, python.xml (pytest's JUnit),
logs.tar.gz. Failed tests and the last lines of each failed step are also printed to standard
output.
Standard library only: it runs on Debian's Python 3.11 (CI's rehearsal) and the GPU machine's 3.12.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What the GPU machine provides itself: the driver, the CUDA toolkit's libraries (CUDA_HOME or
# PyTorch's nvidia-* wheels), NCCL and cuDNN (wheels), and the C/C++ runtimes. Everything else
# is carried.
HOST_PROVIDED = re.compile(
    r"^(linux-vdso|ld-linux[-\w.]*|libc|libm|libdl|libpthread|librt|libutil|libresolv|libstdc\+\+|"
    r"libgcc_s|libgomp|libcuda|libnvidia[-\w]*|libcudart|libcublas|libcublasLt|libnvrtc[-\w]*|"
    r"libnvJitLink|libnccl|libcudnn[_\w]*)\.so[.\d]*$")

# Tests that fail on purpose under a sanitizer: out-of-memory paths (the sanitizer reports the
# failed cudaMalloc), device-side asserts (a trap is an error to memcheck) and death tests (fork).
MEMCHECK_EXCLUDE = "*DeathTest*:*DeviceSideAssert*:*OutOfMemory*:*MemoryFraction*:*Oom*"

# Step limits (seconds). Each step also stops at the budget's end (less 5 s), so a slow early step
# shortens the later ones rather than the call running past its timeout.
LIMITS = {"env": 20, "libs": 20, "tests": 200, "memcheck": 130, "racecheck": 40, "synccheck": 40,
          "bench": 90, "python": 300}
# Where the python step builds the package: two folders below the checkout, as build/python is,
# so that with CCACHE_BASEDIR (CI's rehearsal) its compile commands are the default build's.
PYTHON_BUILD = os.path.join(ROOT, "build-gpu", "python")
TEST_TIMEOUT = 120  # one binary in the tests step
SANITIZE_TIMEOUT = 120  # one binary under compute-sanitizer


class Proof:
    def __init__(self, carry, out, budget, jobs, only=""):
        self.only = only
        self.carry = carry
        self.out = out
        self.start = time.time()
        self.budget = budget
        self.jobs = jobs
        self.logs = tempfile.mkdtemp(prefix="ember-gpu-logs-")
        self.summary = []
        self.san_options = None  # sanitizer_options(), asked once
        self.failed_tail = []
        self.manifest = json.load(open(os.path.join(carry, "manifest.json")))
        self.env = dict(os.environ)
        self.gpus = 0
        self.python = None

    # ---- bookkeeping ----
    def left(self):
        return self.budget - (time.time() - self.start)

    def note(self, line):
        print(line, flush=True)
        self.summary.append(line)

    def log(self, name, text):
        with open(os.path.join(self.logs, name), "a") as f:
            f.write(text)

    def step(self, name, fn):
        limit = min(LIMITS[name], self.left() - 5)
        if limit < 10:
            self.note(f"STEP {name} SKIPPED 0s (out of time: {self.left():.0f}s left)")
            return "SKIPPED"
        t0 = time.time()
        try:
            verdict, detail = fn(t0 + limit)
        except Exception as e:  # noqa: BLE001 - a broken step is a failed step, the rest still run
            verdict, detail = "FAIL", f"{type(e).__name__}: {e}"
        secs = time.time() - t0
        self.note(f"STEP {name} {verdict} {secs:.0f}s (limit {limit:.0f}s){': ' + detail if detail else ''}")
        return verdict

    def run(self, cmd, deadline, log_name, env=None, cwd=ROOT):
        """Runs cmd until the deadline; returns (exit code or 'timeout', output)."""
        timeout = max(1.0, deadline - time.time())
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env or self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=timeout, text=True, errors="replace")
            rc, out = p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            rc = "timeout"
            out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            out += f"\n[gpu_proof: killed after {timeout:.0f}s]\n"
        except OSError as e:
            rc, out = 127, f"[gpu_proof: could not start {cmd[0]}: {e}]\n"
        self.log(log_name, f"$ {' '.join(cmd)}\n{out}\n[exit {rc}]\n")
        return rc, out

    def tail(self, name, text, lines=15):
        self.failed_tail.append(f"--- {name} (last lines) ---\n" + "\n".join(text.strip().splitlines()[-lines:]))

    # ---- steps ----
    def step_env(self, deadline):
        info = []
        smi = shutil.which("nvidia-smi")
        if smi:
            rc, out = self.run([smi, "--query-gpu=name,driver_version,memory.total,compute_cap",
                                "--format=csv,noheader"], deadline, "env.log")
            gpus = [l for l in out.splitlines() if l.strip() and "," in l] if rc == 0 else []
            self.gpus = len(gpus)
            info += gpus or ["nvidia-smi: no GPU listed"]
        else:
            info.append("no nvidia-smi")
        nvcc = find_nvcc()
        info.append(f"nvcc: {nvcc or 'not found'}")
        # The tests' PyTorch oracle: the first python3 that imports torch.
        for py in [os.environ.get("EMBER_TORCH_PYTHON", ""), shutil.which("python3") or "", "/usr/bin/python3"]:
            if not py:
                continue
            rc, out = self.run([py, "-c", "import torch; print(torch.__version__, torch.version.cuda)"],
                               deadline, "env.log")
            if rc == 0:
                self.python = py
                info.append(f"torch {out.strip()} at {py}")
                break
        if not self.python:
            info.append("no python3 with torch: the oracle tests fail, the bench has no PyTorch rows")
        info.append(f"carry: {self.manifest.get('git', '?')} built for sm_{self.manifest.get('arch', '?')}")
        for line in info:
            self.note("  " + line)
        if self.python:
            # The tests start the oracle with their own environment; a wrapper drops the carry's
            # LD_LIBRARY_PATH first, so PyTorch loads the libraries it was built with.
            wrapper = os.path.join(self.logs, "oracle-python")
            with open(wrapper, "w") as f:
                f.write(f'#!/bin/sh\nunset LD_LIBRARY_PATH\nexec "{self.python}" "$@"\n')
            os.chmod(wrapper, 0o755)
            self.env["EMBER_TORCH_PYTHON"] = wrapper
        return "PASS", f"{self.gpus} GPU(s)"

    def step_libs(self, deadline):
        """LD_LIBRARY_PATH = the carry, then CUDA's and the wheels' library folders; every binary's
        libraries must resolve, and only to the carry or to what the host provides."""
        dirs = [os.path.join(self.carry, "lib")] + cuda_library_dirs(self.python)
        fallback = os.path.join(self.carry, "lib-fallback")
        self.env["LD_LIBRARY_PATH"] = ":".join(dirs + [self.env.get("LD_LIBRARY_PATH", "")]).rstrip(":")
        problems = check_libraries(self.carry, self.env)
        missing_runtime = [p for p in problems if p[1].startswith(("libgomp", "libstdc++", "libgcc_s"))]
        if missing_runtime and os.path.isdir(fallback):
            # The host lacks a C/C++ runtime: use the carried one (last, so a host's newer one wins).
            self.env["LD_LIBRARY_PATH"] += ":" + fallback
            problems = check_libraries(self.carry, self.env)
        self.note(f"  LD_LIBRARY_PATH={self.env['LD_LIBRARY_PATH']}")
        if problems:
            text = "\n".join(f"{b}: {lib} -> {where}" for b, lib, where in problems)
            self.log("libs.log", text + "\n")
            self.tail("libs", text)
            return "FAIL", f"{len(problems)} unresolved or unexpected libraries (libs.log)"
        return "PASS", f"{len(self.manifest['binaries'])} binaries resolve"

    def selected(self, names):
        """The binaries --binaries REGEX names (all when it is empty)."""
        return [n for n in names if not self.only or re.search(self.only, n)]

    def test_env(self):
        env = dict(self.env)
        env.setdefault("OMP_NUM_THREADS", "2")  # -j jobs on 16 cores: no oversubscription
        env["EMBER_SOURCE_DIR"] = ROOT
        env["EMBER_TOOLS_DIR"] = os.path.join(self.carry, "bin")  # ember-train, ember-run
        return env

    def run_binaries(self, deadline, names, log_prefix, wrap=None, extra=None, per=TEST_TIMEOUT):
        """Runs test binaries in parallel; returns {name: (rc, xml path or None, output)}."""
        results = {}
        xml_dir = os.path.join(self.logs, log_prefix + "-xml")
        os.makedirs(xml_dir, exist_ok=True)

        def one(name):
            xml = os.path.join(xml_dir, name + ".xml")
            cmd = (wrap or []) + [os.path.join(self.carry, "bin", name), f"--gtest_output=xml:{xml}"]
            cmd += extra or []
            rc, out = self.run(cmd, min(deadline, time.time() + per), f"{log_prefix}-{name}.log",
                               env=self.test_env())
            return name, (rc, xml if os.path.exists(xml) else None, out)

        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            for name, r in pool.map(one, names):
                results[name] = r
        return results

    def step_tests(self, deadline):
        names = self.selected([t["binary"] for t in self.manifest["tests"]])
        results = self.run_binaries(deadline, names, "tests")
        suites, passed, failed, skipped, broken = merge_junit(results)
        ET.ElementTree(suites).write(os.path.join(self.out, "tests.xml"), encoding="utf-8",
                                     xml_declaration=True)
        for name, (rc, xml, out) in results.items():
            if rc != 0:
                self.tail(f"tests {name} (exit {rc})", out, 25)
        self.note(f"  tests: {passed} passed, {failed} failed, {skipped} skipped; "
                  f"{broken} binaries crashed or timed out")
        if failed or broken:
            failed_names = [c.get("classname", "") + "." + c.get("name", "")
                            for c in suites.iter("testcase") if c.find("failure") is not None]
            for n in failed_names[:40]:
                self.note(f"  FAILED {n}")
            return "FAIL", f"{failed} failed, {broken} binaries broken"
        if not self.gpus:
            return "NO-GPU", f"{passed} passed, {skipped} skipped (no GPU: the CUDA tests skip)"
        return "PASS", f"{passed} passed, {skipped} skipped"

    def sanitizer(self):
        return shutil.which("compute-sanitizer") or _in_cuda_bin("compute-sanitizer")

    def sanitizer_options(self, san):
        """Options that keep the tools to memory and synchronisation errors, each used only where
        this compute-sanitizer lists it: failed API calls are the tests' own business (they check
        CUDA's error codes on purpose, and NCCL probes kernel images), and a binary whose tests
        never reach CUDA is no error."""
        if self.san_options is None:
            _, text = self.run([san, "--help"], time.time() + 20, "sanitizer-help.log")
            self.san_options = []
            for option in ("--report-api-errors", "--require-cuda-init"):
                if option in text:
                    self.san_options += [option, "no"]
        return self.san_options

    def preflight(self, san, deadline):
        """One small binary under the sanitizer: 'unavailable' when it refuses the device."""
        rc, out = self.run([san, "--tool", "memcheck", "--error-exitcode", "3",
                            os.path.join(self.carry, "bin", "test_cuda_availability")],
                           min(deadline, time.time() + 60), "memcheck-preflight.log", env=self.test_env())
        refused = re.search(r"Device not supported|unable to initialize|error 999|"
                            r"Target application terminated before first instrumented API call", out)
        return rc, out, bool(refused)

    def step_memcheck(self, deadline):
        san = self.sanitizer()
        if not san:
            return "UNAVAILABLE", "no compute-sanitizer"
        rc, out, refused = self.preflight(san, deadline)
        if refused or (rc != 0 and not self.gpus):
            self.tail("memcheck preflight", out)
            return "UNAVAILABLE", "compute-sanitizer refused the device (memcheck-preflight.log)"
        names = self.selected([t["binary"] for t in self.manifest["tests"]
                               if t["binary"] not in ("test_cuda_sim",)])
        wrap = [san, "--tool", "memcheck", "--error-exitcode", "3", "--leak-check", "no"]
        wrap += self.sanitizer_options(san)
        saved = self.env.get("EMBER_NO_CUDA_MEMORY_CACHING")
        self.env["EMBER_NO_CUDA_MEMORY_CACHING"] = "1"  # an overrun is not hidden in a segment
        try:
            results = self.run_binaries(deadline, names, "memcheck", wrap=wrap,
                                        extra=[f"--gtest_filter=-{MEMCHECK_EXCLUDE}"],
                                        per=SANITIZE_TIMEOUT)
        finally:
            if saved is None:
                self.env.pop("EMBER_NO_CUDA_MEMORY_CACHING", None)
            else:
                self.env["EMBER_NO_CUDA_MEMORY_CACHING"] = saved
        return self.sanitizer_verdict("memcheck", results)

    def sanitizer_verdict(self, tool, results):
        """FAIL when the sanitizer reported errors (or a binary failed under it); PARTIAL when some
        binaries did not finish in time (no error seen, but not all of them checked)."""
        bad, unfinished = [], []
        for name, (rc, _, out) in results.items():
            errors = re.search(r"ERROR SUMMARY: (\d+) error", out)
            if rc == "timeout":
                unfinished.append(name)
            elif (rc != 0 and "terminated before first instrumented API call" in out and
                  "[  FAILED  ]" not in out and (not errors or not int(errors.group(1)))):
                continue  # its tests passed without touching CUDA: nothing to check
            elif rc != 0 or (errors and int(errors.group(1))):
                bad.append(name)
                self.tail(f"{tool} {name} (exit {rc})", out, 30)
        if bad:
            return "FAIL", f"{len(bad)} of {len(results)} binaries: {', '.join(bad)}"
        if unfinished:
            return "PARTIAL", (f"{len(results) - len(unfinished)} binaries clean, {len(unfinished)} "
                               f"unfinished (rerun with --steps {tool} --binaries): {', '.join(unfinished)}")
        return "PASS", f"{len(results)} binaries clean"

    def step_kernel_tool(self, tool, deadline):
        san = self.sanitizer()
        if not san:
            return "UNAVAILABLE", "no compute-sanitizer"
        results = self.run_binaries(deadline, ["test_cuda_kernels"], tool,
                                    wrap=[san, "--tool", tool, "--error-exitcode", "3"] +
                                    self.sanitizer_options(san),
                                    per=SANITIZE_TIMEOUT)
        return self.sanitizer_verdict(tool, results)

    def step_bench(self, deadline):
        ember = os.path.join(self.carry, "bin", "bench_ember_cuda")
        if not os.path.exists(ember):
            return "FAIL", "bench_ember_cuda is not in the carry"
        if not self.gpus:
            # Without a GPU only the plumbing can be checked: the row names both programs share.
            rc, out = self.run([self.python or sys.executable, os.path.join(ROOT, "bench", "gpu_bench.py"),
                                "--self-test"], deadline, "bench.log", env=self.test_env())
            if rc != 0:
                self.tail("bench self-test", out)
                return "FAIL", "gpu_bench.py --self-test failed"
            return "NO-GPU", "self-test only"
        out_json = os.path.join(self.out, "gpu_bench.json")
        rc, out = self.run([self.python or "python3", os.path.join(ROOT, "bench", "gpu_bench.py"), "--quick",
                            "--strict", "--ember", ember, "--out", out_json], deadline, "bench.log",
                           env=self.test_env())
        if rc != 0:
            self.tail("bench", out, 30)
            return "FAIL", f"exit {rc} (bench.log)"
        return "PASS", "rows in gpu_bench.json"

    def step_python(self, deadline):
        """The carry holds no Python module (this machine's Python is not Debian's): ember._C is
        built here with this Python's headers and nanobind, against the carried libember, and the
        Python suite runs on it, PyTorch programs renamed included (their cuda branch on a GPU)."""
        py = self.python
        if not py:
            return "FAIL", "no python3 with torch"
        rc, out = self.run([py, "-c", "import os, sysconfig; i = sysconfig.get_paths()['include'];"
                            "print(i, os.path.exists(os.path.join(i, 'Python.h')))"],
                           deadline, "python-build.log")
        if rc != 0 or not out.strip().endswith("True"):
            return "FAIL", f"no Python.h for {py}: {out.strip()}"
        # cmake/EmberPython.cmake asks the same; asked first, a missing nanobind is named here.
        rc, _ = self.run([py, "-m", "nanobind", "--cmake_dir"], deadline, "python-build.log")
        if rc != 0:
            return "FAIL", f"{py} has no nanobind (python-build.log)"
        cmake = shutil.which("cmake")
        if not cmake:
            return "FAIL", "no cmake"
        libs = sorted(glob.glob(os.path.join(self.carry, "lib", "libember.so*")))
        if not libs:
            return "FAIL", "no libember in the carry"
        configure = [cmake, "-S", os.path.join(ROOT, "python"), "-B", PYTHON_BUILD,
                     "-DCMAKE_BUILD_TYPE=Release", f"-DEMBER_LIBRARY={libs[0]}",
                     f"-DPython_EXECUTABLE={py}"]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        shutil.rmtree(PYTHON_BUILD, ignore_errors=True)
        t0 = time.time()
        for cmd in (configure, [cmake, "--build", PYTHON_BUILD, "-j", str(os.cpu_count() or 2)]):
            rc, out = self.run(cmd, deadline, "python-build.log")
            if rc != 0:
                self.tail("python build", out, 30)
                return "FAIL", f"{os.path.basename(cmd[1])} exit {rc} (python-build.log)"
        self.note(f"  ember._C built in {time.time() - t0:.0f}s for {py}")
        env = self.test_env()
        # PyTorch and Ember share one process here: the wheels' CUDA libraries (PyTorch's own)
        # come before the toolkit's, which PyTorch was not built with.
        dirs = env.get("LD_LIBRARY_PATH", "").split(":")
        wheels = [d for d in dirs if os.sep + "nvidia" + os.sep in d]
        env["LD_LIBRARY_PATH"] = ":".join([dirs[0]] + wheels + [d for d in dirs[1:] if d not in wheels])
        env.update(EMBER_PYTHON_PATH=PYTHON_BUILD, PYTHONDONTWRITEBYTECODE="1",
                   EMBER_INCLUDE_DIR=os.path.join(ROOT, "include"), PYTHONUNBUFFERED="1")
        xml = os.path.join(self.out, "python.xml")
        rc, out = self.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
                            f"--junitxml={xml}", os.path.join(ROOT, "tests", "python")],
                           deadline, "python-tests.log", env=env)
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        if os.path.exists(xml):
            for suite in ET.parse(xml).getroot().iter("testsuite"):
                for k in counts:
                    counts[k] += int(suite.get(k, 0))
        passed = counts["tests"] - counts["failures"] - counts["errors"] - counts["skipped"]
        detail = (f"{passed} passed, {counts['failures'] + counts['errors']} failed, "
                  f"{counts['skipped']} skipped")
        self.note(f"  python: {detail}")
        if rc != 0 or not os.path.exists(xml):
            for line in out.splitlines():
                if line.startswith(("FAILED ", "ERROR ")):
                    self.note("  " + line[:300])
            self.tail("python tests", out, 30)
            return "FAIL", f"pytest exit {rc}: {detail} (python-tests.log)"
        if not self.gpus:
            return "NO-GPU", detail + " (no GPU: the CPU branches)"
        return "PASS", detail

    def finish(self, verdicts):
        if any(v == "FAIL" for v in verdicts.values()):
            result = "FAIL"
        elif not self.gpus:
            result = "NO-GPU"  # the rehearsal: everything ran, nothing touched a GPU
        elif any(v in ("UNAVAILABLE", "SKIPPED", "PARTIAL") for v in verdicts.values()):
            result = "PARTIAL"
        else:
            result = "PASS"
        self.note(f"RESULT {result} {time.time() - self.start:.0f}s "
                  + " ".join(f"{k}={v}" for k, v in verdicts.items()))
        with open(os.path.join(self.out, "summary.txt"), "w") as f:
            f.write("\n".join(self.summary) + "\n")
        with tarfile.open(os.path.join(self.out, "logs.tar.gz"), "w:gz") as tar:
            tar.add(self.logs, arcname="logs")
        if self.failed_tail:  # then the verdicts again, last, where the reply's tail shows them
            print("\n".join(self.failed_tail))
            print("\n".join(l for l in self.summary if l.startswith(("STEP ", "RESULT "))))
        return 0 if result in ("PASS", "NO-GPU") else 1


def _in_cuda_bin(tool):
    nvcc = find_nvcc()
    if nvcc:
        path = os.path.join(os.path.dirname(nvcc), tool)
        if os.access(path, os.X_OK):
            return path
    return None


def find_nvcc():
    for cand in [os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "nvcc") if os.environ.get("CUDA_HOME") else "",
                 shutil.which("nvcc") or "", "/usr/local/cuda/bin/nvcc"]:
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def cuda_library_dirs(python):
    """CUDA_HOME's lib64 (from $CUDA_HOME or nvcc's place), then the nvidia-* wheels' lib folders
    of the Python that has torch (cuBLAS, NVRTC and NCCL come from there on the GPU machine)."""
    dirs = []
    nvcc = find_nvcc()
    homes = [os.environ.get("CUDA_HOME", ""), os.path.dirname(os.path.dirname(nvcc)) if nvcc else ""]
    for home in homes:
        for sub in ("lib64", "lib", "targets/x86_64-linux/lib"):
            d = os.path.join(home, sub) if home else ""
            if d and os.path.isdir(d) and d not in dirs:
                dirs.append(d)
    if python:
        try:
            site = subprocess.run([python, "-c", "import site; print('\\n'.join(site.getsitepackages()))"],
                                  capture_output=True, text=True, timeout=20).stdout.split()
        except (OSError, subprocess.TimeoutExpired):
            site = []
        for s in site:
            for d in sorted(glob.glob(os.path.join(s, "nvidia", "*", "lib")) +
                            glob.glob(os.path.join(s, "nvidia", "cu*", "lib"))):
                if d not in dirs:
                    dirs.append(d)
    return dirs


def check_libraries(carry, env):
    """(binary, library, where) for each library that is missing, or resolves outside the carry to
    something the GPU machine is not known to provide."""
    problems = []
    carry_real = os.path.realpath(carry)
    files = [os.path.join(carry, "bin", b) for b in sorted(os.listdir(os.path.join(carry, "bin")))]
    files += [os.path.join(carry, "lib", l) for l in sorted(os.listdir(os.path.join(carry, "lib")))
              if ".so" in l and not os.path.islink(os.path.join(carry, "lib", l))]
    for f in files:
        try:
            out = subprocess.run(["ldd", f], env=env, capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            problems.append((os.path.basename(f), "ldd", str(e)))
            continue
        for line in out.splitlines():
            if "not found" in line and "version `" in line:  # a C/C++ runtime older than the build's
                problems.append((os.path.basename(f), os.path.basename(line.split(":")[1].strip()), line.strip()))
                continue
            m = re.match(r"\s*(\S+)\s*=>\s*(.*?)\s*(\(0x[0-9a-f]+\))?$", line)
            if not m:
                continue
            lib, where = m.group(1), m.group(2)
            if where == "not found":
                problems.append((os.path.basename(f), lib, "not found"))
            elif not os.path.realpath(where).startswith(carry_real) and not HOST_PROVIDED.match(lib):
                problems.append((os.path.basename(f), lib, f"{where} (not carried, not provided by the GPU machine)"))
    return problems


def merge_junit(results):
    """One <testsuites> from each binary's gtest XML; a binary that crashed or timed out becomes a
    failed test case named after it."""
    suites = ET.Element("testsuites", name="ember-gpu-proof")
    passed = failed = skipped = broken = 0
    for name, (rc, xml, out) in sorted(results.items()):
        root = None
        if xml:
            try:
                root = ET.parse(xml).getroot()
            except ET.ParseError:
                root = None
        if root is not None:
            for suite in root.iter("testsuite"):
                for case in suite.iter("testcase"):
                    if case.find("failure") is not None:
                        failed += 1
                    elif case.find("skipped") is not None or case.get("result") == "skipped":
                        skipped += 1
                    else:
                        passed += 1
                suite.set("name", f"{name}.{suite.get('name')}")
                suites.append(suite)
        if rc != 0 and (root is None or rc == "timeout" or (isinstance(rc, int) and rc < 0)):
            broken += 1
            suite = ET.SubElement(suites, "testsuite", name=name, tests="1", failures="1")
            case = ET.SubElement(suite, "testcase", name="binary", classname=name)
            fail = ET.SubElement(case, "failure", message=f"exit {rc}")
            fail.text = "\n".join(out.splitlines()[-40:])
    return suites, passed, failed, skipped, broken


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--carry", required=True, help="the unpacked carry (bin/, lib/, manifest.json)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=480, help="seconds for all steps (default 480)")
    # Half the cores (the tests use two OpenMP threads each), at least 3: on a 2-core rehearsal
    # the PyTorch oracle's waits leave room for a third.
    ap.add_argument("--jobs", type=int, default=min(8, max(3, (os.cpu_count() or 2) // 2)))
    ap.add_argument("--steps", default="env,libs,tests,memcheck,racecheck,synccheck,bench",
                    help="the steps to run, in order (env and libs are always needed)")
    ap.add_argument("--binaries", default="", help="only the test binaries matching this regex")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    proof = Proof(os.path.abspath(args.carry), os.path.abspath(args.out), args.budget, args.jobs,
                  args.binaries)
    steps = {
        "env": proof.step_env,
        "libs": proof.step_libs,
        "tests": proof.step_tests,
        "memcheck": proof.step_memcheck,
        "racecheck": lambda d: proof.step_kernel_tool("racecheck", d),
        "synccheck": lambda d: proof.step_kernel_tool("synccheck", d),
        "bench": proof.step_bench,
        "python": proof.step_python,
    }
    verdicts = {}
    for name in args.steps.split(","):
        verdicts[name] = proof.step(name, steps[name])
        if name == "libs" and verdicts[name] == "FAIL":
            proof.note("  the binaries cannot load: later steps would only repeat that")
            break
    return proof.finish(verdicts)


if __name__ == "__main__":
    sys.exit(main())
