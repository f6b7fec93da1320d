"""python3 -m symshape against the C command's contract (issue 33 item 3): the policy flags,
the exit statuses of `symshape run`, --help, the html backend, and one-line errors (no
traceback) for every failure a user can cause. Runs the command in subprocesses, as a user does."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
ROOT = os.path.dirname(PKG)


def run(*args, lib=None, timeout=600):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG, HERE]), PYTHONDONTWRITEBYTECODE="1")
    if lib is not None:
        env["SYMSHAPE_LIB"] = lib
    r = subprocess.run([sys.executable, "-m", "symshape"] + list(args), env=env, capture_output=True,
                       timeout=timeout, cwd=HERE)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def one_line_error(err):
    lines = [l for l in err.splitlines() if l.strip()]
    assert "Traceback" not in err, err
    assert lines and lines[0].startswith("symshape: error: "), err
    return lines[0]


# ------------------------------------------------------------------ without the library / torch
def test_help_works_without_the_library():
    for cmd in ([], ["report"], ["export"]):
        rc, out, err = run(*(cmd + ["--help"]), lib="/nonexistent/libsymshape.so")
        assert rc == 0 and "Traceback" not in err, (cmd, err)
        assert "exit status:" in out
    rc, out, _ = run("report", "--help", lib="/nonexistent/libsymshape.so")
    for text in ("--input NAME=D,D,...[:DTYPE]", "--input NAME=int:V", "--dynamic NAME=SPEC", "D[:DIM][@MIN..MAX]",
                 "--no-duck-sizing", "--no-specialize-01", "violates the dynamic-dim spec", "  3  bad input"):
        assert text in out, text


def test_missing_library_is_one_line_exit_4():
    rc, out, err = run("report", "cli_models:Pinned", "--input", "x=2,3,8,8", lib="/nonexistent/libsymshape.so")
    assert rc == 4
    assert "cannot load libsymshape.so" in one_line_error(err) and "/nonexistent/libsymshape.so" in err


def test_usage_errors_exit_2_one_line():
    for args, text in ((["report", "cli_models:Pinned", "--input", "x=2,a"], "sizes must be integers"),
                       (["report", "cli_models:Pinned", "--input", "x"], "expected NAME=D,D,..."),
                       (["report", "cli_models:Pinned", "--input", "x=2:float7"], "unknown dtype 'float7'"),
                       (["report", "cli_models:Pinned"], "at least one --input"),
                       (["report", "cli_models:Pinned", "--input", "x=2,3", "--dynamic", "y=0"], "no --input named y"),
                       (["report", "cli_models:Pinned", "--input", "x=2,3", "--dynamic", "x=0:"], "--dynamic"),
                       (["report", "cli_models:Pinned", "--input", "x=2,3", "--dynamic", "x=5"], "no dim 5"),
                       (["report", "cli_models:Pinned", "--input", "x=2,3", "-b", "nope"], "unknown backend 'nope'"),
                       (["report", "nocolon", "--input", "x=2,3"], "expected MODULE:CALLABLE"),
                       (["report", "cli_models:Pinned", "--input", "x=2", "--frob"], "unrecognized arguments")):
        rc, out, err = run(*args)
        assert rc == 2, (args, rc, err)
        assert text in one_line_error(err), (args, err)
        assert "--help" in err


# ------------------------------------------------------------------ with torch
torch = pytest.importorskip("torch")


def test_unknown_module_and_attribute_exit_3():
    rc, _, err = run("report", "no_such_module_xyz:f", "--input", "x=1")
    assert rc == 3 and "no module named 'no_such_module_xyz'" in one_line_error(err)
    rc, _, err = run("report", "cli_models:nope", "--input", "x=1")
    assert rc == 3 and "module 'cli_models' has no attribute 'nope'" in one_line_error(err)
    rc, _, err = run("report", "cli_models:NOT_CALLABLE", "--input", "x=1")
    assert rc == 3 and "not a callable" in one_line_error(err)
    rc, _, err = run("report", "cli_models:factory_fails", "--input", "x=1")
    assert rc == 3 and "building the model failed: RuntimeError: no weights here" in one_line_error(err)


def test_failing_model_exit_3():
    rc, _, err = run("report", "cli_models:broken", "--input", "x=2,4")
    assert rc == 3 and "cannot export" in one_line_error(err)
    rc, _, err = run("export", "cli_models:broken", "--input", "x=2,4", "-o", "/nonexistent/dir/g.json")
    assert rc == 3 and "cannot export" in one_line_error(err)
    rc, _, err = run("export", "cli_models:Pinned", "--input", "x=2,3,8,8", "-o", "/nonexistent/dir/g.json")
    assert rc == 3 and "cannot write /nonexistent/dir/g.json" in one_line_error(err)


def test_spec_violation_exits_1_after_rendering():
    rc, out, err = run("report", "cli_models:Pinned", "--input", "x=2,3,8,8", "--dynamic", "x=0:batch,2:h")
    assert rc == 1, err
    assert "CONSTRAINTS VIOLATED: 1 (symshape run exits 1)" in out
    assert "x.size()[2] == 8" in out
    assert "1 violation of the dynamic-dim spec" in err
    rc, out, err = run("report", "cli_models:Pinned", "--input", "x=2,3,8,8", "--dynamic", "x=0:batch@1..64")
    assert rc == 0 and "holds: the guard set keeps every declared dim dynamic" in out, err


def test_policy_flags_reach_the_env():
    base = ["report", "cli_models:cat2", "--input", "x=3,2", "--input", "y=3,5", "-b", "json"]
    import json
    texts = lambda out: [g["text"] for g in json.loads(out)["guards"]]  # noqa: E731
    rc, out, err = run(*base)
    assert rc == 0, err
    assert "x.size()[0] == y.size()[0]" in texts(out)  # duck sizing: one symbol, its equality guarded
    rc, out, err = run(*(base + ["--no-duck-sizing"]))
    assert rc == 0, err
    assert "x.size()[0] == y.size()[0]" in texts(out)  # now a requirement of cat, still a guard
    assert json.loads(out) != json.loads(run(*base)[1])
    one = ["report", "cli_models:Pinned", "--input", "x=1,3,8,8", "-b", "json"]
    rc, out, err = run(*one)
    assert rc == 0 and "x.size()[0] == 1" in texts(out), err  # 0/1 specialization
    rc, out, err = run(*(one + ["--no-specialize-01"]))
    assert rc == 0 and "x.size()[0] == 1" not in texts(out), err


def test_html_backend(tmp_path):
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not on PATH")
    p = tmp_path / "r.html"
    rc, out, err = run("report", "cli_models:Pinned", "--input", "x=2,3,8,8", "-b", "html", "-o", str(p))
    if rc == 2 and "unknown backend 'html'" in err:
        import ctypes.util
        if not ctypes.util.find_library("cmark-gfm"):
            pytest.skip("library built without cmark-gfm")
    assert rc == 0, err
    assert p.read_text().startswith("<!DOCTYPE html>")


def test_version_names_the_library_and_its_features():
    rc, out, err = run("--version")
    assert rc == 0 and "Traceback" not in err, err
    lines = out.splitlines()
    assert lines[0].startswith("symshape 0.") and lines[1].startswith("library 0."), out
    assert lines[2].startswith("features: "), out
    rc, out, err = run("--version", lib="/nonexistent/libsymshape.so")
    assert rc == 0 and "library: not loaded: cannot load libsymshape.so" in out, (out, err)


def test_progress_only_on_a_terminal_and_not_with_quiet():
    """The stage line goes to stderr only when it is a terminal (a pty here), erased after the
    work; a pipe sees none; --quiet shows none."""
    import pty
    args = ["report", "cli_models:Pinned", "--input", "x=2,3,8,8", "-b", "json"]
    rc, out, err = run(*args)
    assert rc == 0 and "exporting" not in err and "\r" not in err, err
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG, HERE]), PYTHONDONTWRITEBYTECODE="1")
    for quiet in (False, True):
        master, slave = pty.openpty()
        try:
            p = subprocess.Popen([sys.executable, "-m", "symshape"] + args + (["--quiet"] if quiet else []), env=env,
                                 stdout=subprocess.PIPE, stderr=slave, cwd=HERE)
            os.close(slave)
            chunks = []
            while True:
                try:
                    b = os.read(master, 4096)
                except OSError:  # EIO: the child closed the pty
                    break
                if not b:
                    break
                chunks.append(b)
            out = p.stdout.read()
            assert p.wait(timeout=600) == 0
        finally:
            os.close(master)
        tty = b"".join(chunks).decode("utf-8", "replace")
        assert b'"guards"' in out
        if quiet:
            assert "exporting" not in tty, tty
        else:
            assert "symshape: report: exporting Pinned (torch.fx, running the model)..." in tty, tty
            assert "tracing" in tty and tty.endswith("\r\x1b[K"), repr(tty)
