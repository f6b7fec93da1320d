"""python3 -m symshape: export a model from Python code and print its guard report.

  python3 -m symshape report MODULE:CALLABLE --input NAME=D,D,... [--input ...]
                             [--dynamic NAME=SPEC] [--no-duck-sizing] [--no-specialize-01]
                             [--backend NAME] [-o FILE] [--name NAME] [--seed S]
  python3 -m symshape export MODULE:CALLABLE --input NAME=D,D,... [...] -o G.json
  python3 -m symshape diff A B [--map OLD=NEW] [--json] [--run MODULE:CALLABLE] [-o FILE]

The options and exit statuses are those of the C command (`symshape run`, docs/cli.md); see
`python3 -m symshape report --help` and docs/python.md "Command line". Every error a user can
cause is one line on stderr starting with "symshape: error: " (no traceback).
"""
import argparse
import contextlib
import importlib
import json
import os
import re
import sys

from .errors import Error, ExportError, LibraryNotFound, NoMemoryError, _line

PROG = "python3 -m symshape"

# Exit statuses: the C command's (cli/cli.h, docs/cli.md "Exit status"), the same for each
# status `symshape run` has; docs/python.md "Command line" has this table.
EX_OK, EX_VIOLATION, EX_USAGE, EX_INPUT, EX_INTERNAL = 0, 1, 2, 3, 4

EXIT_TABLE = """exit status:
  0  success (report: rendered, and the dynamic-dim spec holds or none was declared)
  1  report: rendered, and the guard set violates the dynamic-dim spec (--dynamic with names
     or ranges): the report's "Dynamic-dim spec" lists each violation with its fix
  2  usage error (unknown option or backend, malformed --input or --dynamic, a --dynamic naming
     no --input, bytecode to a terminal)
  3  bad input: MODULE:CALLABLE cannot be imported or called, the model fails at the example
     inputs or cannot be exported or traced (the message names the node, op and source line),
     or the output cannot be written
  4  internal: libsymshape or torch cannot be loaded, out of memory
"""

EXPORT_EXIT_TABLE = """exit status:
  0  wrote the graph
  2  usage error (unknown option, malformed --input or --dynamic, a --dynamic naming no --input)
  3  bad input: MODULE:CALLABLE cannot be imported or called, the model fails at the example
     inputs or cannot be exported, or the output cannot be written
  4  internal: torch cannot be loaded, out of memory
"""

INPUT_HELP = """\
--input NAME=D,D,...[:DTYPE]  one argument of the model, by its name in forward's signature
                     (the model is called as model(**inputs)): a random tensor of that shape
                     (seeded by --seed), float32 unless DTYPE is given (float64, float16,
                     bfloat16, int64, int32, int16, int8, uint8, bool: integer dtypes hold 0/1);
                     NAME= with no sizes is a 0-d tensor.
--input NAME=int:V   an int argument V (specialized: written into the graph as a constant)."""

DYNAMIC_HELP = """\
--dynamic NAME=SPEC  the dims of input NAME that get symbols; SPEC is a comma-separated list of
                     D[:DIM][@MIN..MAX]: D a dim index, :DIM names it (torch.export's Dim; one
                     name on several dims, in one input or several, declares them equal),
                     @MIN..MAX its range (either bound may be left out). A name or a range
                     declares a dynamic-dim spec: the report checks that the guards keep those
                     dims dynamic over their ranges, and exit status 1 says they do not.
                     Without --dynamic every dim of every tensor input is dynamic; with it, the
                     tensor inputs not named are static. Example: --dynamic x=0:batch@1..1024,2:h,3:w"""

POLICY_HELP = """\
--no-duck-sizing     equal example sizes do not share a symbol (PyTorch's duck sizing is on by
                     default: dims whose example sizes are equal start as one symbol)
--no-specialize-01   example sizes 0 and 1 stay symbolic (range [0, oo)); by default they are
                     specialized to the constant, as PyTorch does"""


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """Usage errors as the C command prints them: "symshape: error: CMD: MSG" and a pointer to
    --help, exit status 2 (no usage dump, no traceback)."""

    def error(self, message):
        cmd = self.prog[len(PROG):].strip()
        print("symshape: error: %s%s" % (cmd + ": " if cmd else "", message), file=sys.stderr)
        print("(see '%s --help')" % self.prog, file=sys.stderr)
        sys.exit(EX_USAGE)


def _parse_input(text):
    if "=" not in text:
        raise _Usage("--input %r: expected NAME=D,D,... (or NAME=int:V)" % text)
    name, spec = text.split("=", 1)
    name = name.strip()
    if not name.isidentifier():
        raise _Usage("--input %r: NAME must be the argument's name (a Python identifier)" % text)
    dtype = "float32"
    if spec.startswith("int:"):
        try:
            return name, ("int", int(spec[4:]))
        except ValueError:
            raise _Usage("--input %r: int:V needs an integer V" % text) from None
    if ":" in spec:
        spec, dtype = spec.rsplit(":", 1)
        dtype = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32"}.get(dtype, dtype)
        if dtype not in _DTYPES:
            raise _Usage("--input %r: unknown dtype '%s' (one of %s)" % (text, dtype, ", ".join(_DTYPES)))
    try:
        dims = [int(d) for d in spec.split(",") if d.strip() != ""]
    except ValueError:
        raise _Usage("--input %r: sizes must be integers" % text) from None
    if any(d < 0 for d in dims):
        raise _Usage("--input %r: sizes must be >= 0" % text)
    if any(d >= 2 ** 63 for d in dims):
        raise _Usage("--input %r: sizes must be < 2**63" % text)
    return name, ("tensor", dims, dtype)


_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")


def _load_callable(ref):
    """The object MODULE:ATTR[.ATTR...] names; _Input (exit 3) with one line when it cannot be had."""
    if ":" not in ref:
        raise _Usage("%r: expected MODULE:CALLABLE (e.g. torchvision.models:resnet18)" % ref)
    mod, attr = ref.split(":", 1)
    if not mod or not attr:
        raise _Usage("%r: expected MODULE:CALLABLE (e.g. torchvision.models:resnet18)" % ref)
    try:
        obj = importlib.import_module(mod)
    except ModuleNotFoundError as e:
        if e.name and (mod == e.name or mod.startswith(e.name + ".")):
            raise _Input("%s: no module named '%s' (is it on PYTHONPATH?)" % (ref, e.name)) from None
        raise _Input("%s: importing module '%s' failed: %s: %s" % (ref, mod, type(e).__name__, e)) from None
    except SystemExit as e:
        raise _Input("%s: importing module '%s' called exit(%s)" % (ref, mod, e.code)) from None
    except Exception as e:  # the user's module raised while importing
        raise _Input("%s: importing module '%s' failed: %s" % (ref, mod, _exc_line(e))) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise _Input("%s: module '%s' has no attribute '%s'" % (ref, mod, attr)) from None
        obj = getattr(obj, part)
    if not callable(obj):
        raise _Input("%s: '%s' is a %s, not a callable" % (ref, attr, type(obj).__name__))
    return obj


class _Input(Exception):
    pass


def _exc_line(e):
    """One line for an exception: its type and the first line of its message, with the
    innermost frame of the user's code when there is one."""
    msg = str(e).strip().splitlines()
    where = ""
    tb = e.__traceback__
    last = None
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if not f.startswith(os.path.dirname(os.path.abspath(__file__))):
            last = tb
        tb = tb.tb_next
    if last is not None:
        where = " (at %s:%d)" % (last.tb_frame.f_code.co_filename, last.tb_lineno)
    return "%s: %s%s" % (type(e).__name__, msg[0] if msg else "", where)


class _Stage:
    """The stage of long work on stderr, "symshape: report: exporting resnet18 (torch.fx)...",
    redrawn in place and erased when the work ends or before any message; only when stderr is a
    terminal and --quiet was not given (as the C command's progress line, docs/cli.md)."""

    def __init__(self, cmd, quiet):
        self.cmd = cmd
        try:
            self.on = not quiet and sys.stderr.isatty()
        except (AttributeError, ValueError):
            self.on = False
        self.shown = False

    def __call__(self, what):
        if self.on:
            sys.stderr.write("\rsymshape: %s: %s...\033[K" % (self.cmd, what))
            sys.stderr.flush()
            self.shown = True

    def end(self):
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.shown = False


class _Version(argparse.Action):
    """--version: the package's version, then the library's (its path, the optional parts
    compiled into it, as `symshape --version` prints them); exit 0 even without a library."""

    def __call__(self, parser, namespace, values, option_string=None):
        from . import __version__
        print("symshape %s (Python package)" % __version__)
        try:
            from ._lib import lib, lib_path
        except LibraryNotFound as e:
            print("library: not loaded: %s" % e)
        else:
            feats = lib.sy_version_features().decode()
            print("library %s: %s" % (lib.sy_version_string().decode(), lib_path))
            print("features: %s" % (feats or "none"))
        parser.exit(EX_OK)


def _build_parser():
    ap = _Parser(prog=PROG, description="Export a PyTorch model (torch.fx, symbolic sizes) and print "
                 "its guard report, as `symshape run` does for a graph file.",
                 epilog=EXIT_TABLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", "-V", action=_Version, nargs=0,
                    help="print the version, the library loaded and its features, and exit")
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    common_desc = ("MODULE:CALLABLE is imported (PYTHONPATH applies) and, when it is a class or a factory "
                   "taking no required argument (torchvision.models:resnet18), called to build the model "
                   "(an nn.Module is put in eval mode); a function with required parameters is exported as "
                   "it is. The model is traced with torch.fx at random example inputs (--input).")
    for cmd in ("report", "export"):
        if cmd == "report":
            desc = ("Print the guard report of a model: export it, trace it with symbolic sizes, and render the "
                    "minimized guard set with a backend (as `symshape run`).\n\n" + common_desc)
            usage = ("%s report MODULE:CALLABLE --input NAME=D,D,... [--input ...] [--dynamic NAME=SPEC ...]\n"
                     "       [--capture fx|export] [--no-duck-sizing] [--no-specialize-01] [-b BACKEND] [-o FILE] [--name N] [--seed S] [--quiet]" % PROG)
        else:
            desc = ("Write the model's graph JSON (docs/graph-format.md), to trace later with `symshape run`, "
                    "`python3 -m symshape` or symshape.trace().\n\n" + common_desc)
            usage = ("%s export MODULE:CALLABLE --input NAME=D,D,... [--input ...] [--dynamic NAME=SPEC ...]\n"
                     "       [--capture fx|export] [--quiet] -o G.json" % PROG)
        epi = "inputs:\n" + INPUT_HELP + "\n\ndynamic dims:\n" + DYNAMIC_HELP + "\n"
        if cmd == "report":
            epi += "\nshape-environment policies (docs/shapeenv.md):\n" + POLICY_HELP + "\n"
            epi += "\n" + EXIT_TABLE
        else:
            epi += "\n" + EXPORT_EXIT_TABLE
        p = sub.add_parser(cmd, usage=usage, description=desc, epilog=epi,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           help=("print the guard report of a model" if cmd == "report" else "write the model's graph JSON"))
        p.add_argument("callable", metavar="MODULE:CALLABLE", help="the model: a module path and a callable in it")
        p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=D,D,...",
                       help="an input of the model (repeat for each; see 'inputs' below)")
        p.add_argument("--dynamic", "-d", action="append", default=None, metavar="NAME=SPEC",
                       help="the dynamic dims of input NAME (repeat for each input; see 'dynamic dims' below)")
        p.add_argument("--capture", choices=("fx", "export"), default="fx",
                       help="how the model is captured: fx (default: symshape's torch.fx exporter, any PyTorch) or "
                            "export (torch.export.export then run_decompositions(), PyTorch 2.x; the --dynamic dims "
                            "become torch.export Dims: a named dim is Dim(NAME, min=, max=), a bare index Dim.AUTO; "
                            "without --dynamic every dim of every tensor input is Dim.AUTO)")
        p.add_argument("--name", help="model name in the graph (default: the callable's name)")
        p.add_argument("--seed", type=int, default=0, help="seed of the random example tensors (default 0)")
        p.add_argument("--quiet", action="store_true",
                       help="no progress line on stderr (shown only when stderr is a terminal)")
        if cmd == "report":
            p.add_argument("--no-duck-sizing", dest="duck_sizing", action="store_false",
                           help="equal example sizes do not share a symbol")
            p.add_argument("--no-specialize-01", dest="specialize_01", action="store_false",
                           help="example sizes 0 and 1 stay symbolic (range [0, oo))")
            p.add_argument("--backend", "-b", default="report",
                           help="report (default, text), markdown, json, c, bytecode, smtlib, html (a library "
                                "built with cmark-gfm; needs Graphviz's dot), or any registered backend")
            p.add_argument("--output", "-o", help="write to this file instead of stdout ('-': stdout)")
        else:
            p.add_argument("--output", "-o", required=True, help="the graph JSON file to write")
    for cmd in ("region", "corners", "profile", "memory"):
        if cmd == "profile":
            desc = ("Print min/opt/max optimization profiles (TensorRT, onnxruntime's TensorRT provider, "
                    "Torch-TensorRT, OpenVINO) inside the model's region (docs/deploy.md): each box proved to "
                    "hold only sizes every guard accepts; a dim that is a progression or tied to another is "
                    "pinned per box; as `symshape profile`. An ONNX file (MODEL.onnx in place of MODULE:CALLABLE) is "
                    "traced by the C library's ONNX frontend: the output is the C command's.\n\n" + common_desc)
            usage = ("%s profile MODULE:CALLABLE --input NAME=D,D,... [...] [--dynamic NAME=SPEC ...] | MODEL.onnx\n"
                     "       [--histogram FILE] [-k K] [--max-size N] [-f FMT]" % PROG)
            epi = ("inputs:\n" + INPUT_HELP + "\n\ndynamic dims:\n" + DYNAMIC_HELP + "\n\nexit status:\n"
                   "  0  profiles printed\n  1  no box could be proved\n"
                   "  2  usage error\n  3  bad input (import, export, trace or histogram failed)\n  4  internal\n")
        elif cmd == "memory":
            desc = ("Print every tensor value's bytes as an expression of the region's variables, the largest "
                    "activations at the example and, for each --bytes budget, the largest value of one variable "
                    "(default: the first input's dim 0) such that every activation (--total: their sum) fits, "
                    "proved with the decision procedure (docs/deploy.md); as `symshape memory`. An ONNX file "
                    "(MODEL.onnx in place of MODULE:CALLABLE) is traced by the C library's ONNX frontend.\n\n"
                    + common_desc)
            usage = ("%s memory MODULE:CALLABLE --input NAME=D,D,... [...] [--dynamic NAME=SPEC ...] | MODEL.onnx\n"
                     "       [--bytes N]... [--range NAME=LO..HI]... [--var NAME] [--fix NAME=V]...\n"
                     "       [--relation NAME=A*VAR+B]... [--total | --live] [--top K]" % PROG)
            epi = ("inputs:\n" + INPUT_HELP + "\n\ndynamic dims:\n" + DYNAMIC_HELP + "\n\nexit status:\n"
                   "  0  printed\n  2  usage error\n  3  bad input (import, export or trace failed)\n"
                   "  4  internal\n")
        elif cmd == "region":
            desc = ("Print the largest valid region of the model's guards (docs/deploy.md): traced under the most "
                    "relaxed policy, each dim a range and a progression, derived dims, every guard proved or kept "
                    "as a runtime check; as `symshape region`. An ONNX file (MODEL.onnx in place of MODULE:CALLABLE) "
                    "is traced by the C library's ONNX frontend: the output is the C command's.\n\n" + common_desc)
            usage = ("%s region MODULE:CALLABLE --input NAME=D,D,... [...] [--dynamic NAME=SPEC ...] | MODEL.onnx\n"
                     "       [-f FMT]" % PROG)
            epi = ("inputs:\n" + INPUT_HELP + "\n\ndynamic dims:\n" + DYNAMIC_HELP + "\n\nexit status:\n"
                   "  0  printed, the region is proved\n  1  printed, NOT proved\n"
                   "  2  usage error\n  3  bad input (import, export or trace failed)\n  4  internal\n")
        else:
            desc = ("Print the corner tests of the model's region (the sizes where the guards change their mind, "
                    "each with the guard it tests); with --run, run the model on the CPU at each corner and report "
                    "the corners the guards accept where the model fails (unsound) or reject where it runs. An ONNX "
                    "file (MODEL.onnx in place of MODULE:CALLABLE, no --run) is traced by the C library's ONNX "
                    "frontend: the output is the C command's (--json too).\n\n" + common_desc)
            usage = ("%s corners MODULE:CALLABLE --input NAME=D,D,... [...] [--dynamic NAME=SPEC ...] [--run] | MODEL.onnx\n"
                     "       [--json]" % PROG)
            epi = ("inputs:\n" + INPUT_HELP + "\n\ndynamic dims:\n" + DYNAMIC_HELP + "\n\nexit status:\n"
                   "  0  printed (--run: no accepted corner failed)\n"
                   "  1  --run: a corner the guards accept failed on the CPU\n"
                   "  2  usage error\n  3  bad input (import, export or trace failed)\n  4  internal\n")
        p = sub.add_parser(cmd, usage=usage, description=desc, epilog=epi,
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           help={"region": "print the largest valid region (torch.export/JAX/ONNX specs)",
                                 "corners": "corner tests of the region, optionally run on the CPU",
                                 "profile": "min/opt/max optimization profiles inside the region",
                                 "memory": "bytes of every value as expressions, the largest batch that fits"}[cmd])
        p.add_argument("callable", metavar="MODULE:CALLABLE", help="the model: a module path and a callable in it")
        p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=D,D,...",
                       help="an input of the model (repeat for each; see 'inputs' below)")
        p.add_argument("--dynamic", "-d", action="append", default=None, metavar="NAME=SPEC",
                       help="the dynamic dims of input NAME (repeat for each input)")
        p.add_argument("--name", help="model name in the graph (default: the callable's name)")
        p.add_argument("--seed", type=int, default=0, help="seed of the random example tensors (default 0)")
        if cmd == "region":
            p.add_argument("--format", "-f", action="append", default=None,
                           choices=list(REGION_FORMATS) + ["all"],
                           help="text (default), torch, jax, onnx, spec, json, all (every one but json); "
                                "repeat for several")
        elif cmd == "profile":
            p.add_argument("--histogram", metavar="FILE",
                           help='JSON list of {"sizes": {INPUT: [D, ...]}, "count": N} (or a probes file: '
                                '{"points": [{"sizes": ...}]}, count 1 each)')
            p.add_argument("--profiles", "-k", type=_count_arg("--profiles", 1, 64), default=0, metavar="K",
                           help="boxes wanted, 1 .. 64 (default: one per group of pinned sizes, <= 4)")
            p.add_argument("--max-size", type=_count_arg("--max-size", 1, (2 ** 63 - 1) // 4), default=0, metavar="N",
                           help="without a histogram: the largest size of an unbounded dim (default 4 times the example)")
            p.add_argument("--format", "-f", action="append", default=None,
                           choices=list(PROFILE_FORMATS) + ["all"],
                           help="text (default), trtexec, ort, torch-trt, openvino, json, all; repeat for several")
        elif cmd == "memory":
            p.add_argument("--bytes", action="append", default=[], type=_bytes_arg, metavar="N",
                           help="a budget: N, or with k, M, G, T (powers of 1024), e.g. 1G, 16GiB (repeat, <= 8)")
            p.add_argument("--range", action="append", default=[], type=_range_arg, metavar="NAME=LO..HI",
                           help="the peak (of --total, --live or one activation) over the box of these ranges, "
                                "the other variables at the example; proved the largest (repeat, <= 8)")
            p.add_argument("--var", metavar="NAME", help="the region variable to maximize")
            p.add_argument("--fix", action="append", default=[], type=_fix_arg, metavar="NAME=V",
                           help="hold region variable NAME at V (default: the example) while maximizing (repeat, <= 8)")
            p.add_argument("--relation", action="append", default=[], type=_relation_arg, metavar="NAME=A*VAR+B",
                           help="tie NAME to the variable maximized (A >= 1): the largest VAR (so VAR x NAME) with "
                                "NAME = A*VAR + B, e.g. --relation x_1=4*x_0 (repeat, <= 8)")
            p.add_argument("--total", action="store_true", help="the sum of the activations, not the largest one")
            p.add_argument("--live", action="store_true",
                           help="the largest sum of the activations live at one node (graph order): a value lives "
                                "from its node to the last node reading it (outputs: to the end)")
            p.add_argument("--top", type=_count_arg("--top", 0, 1000000), default=5, metavar="K",
                           help="largest activations shown (default 5)")
        else:
            p.add_argument("--run", action="store_true", help="run the model on the CPU at each corner (MODULE:CALLABLE)")
            p.add_argument("--json", action="store_true",
                           help='JSON "symshape.corners" (label, sizes, in_region, accept, guard), as `symshape corners --json`')
    p = sub.add_parser("diff", usage="%s diff A B [--map OLD=NEW ...] [--json] [--run MODULE:CALLABLE] [-o FILE]" % PROG,
                       description=DIFF_DESC, epilog=DIFF_EXIT_TABLE, formatter_class=argparse.RawDescriptionHelpFormatter,
                       help="compare two guard sets by meaning, with witness sizes")
    p.add_argument("a", metavar="A", help="the old version: graph JSON, ONNX model (.onnx) or guard set JSON")
    p.add_argument("b", metavar="B", help="the new version (same kinds)")
    p.add_argument("--map", action="append", default=[], metavar="OLD=NEW", help="input OLD of A is input NEW of B")
    p.add_argument("--json", action="store_true", help='the result as JSON ("symshape.diff" version 1)')
    p.add_argument("--run", metavar="MODULE:CALLABLE",
                   help="run this model on the CPU at every witness (random float inputs of the witness shapes) "
                        "and say whether it runs there")
    p.add_argument("--no-duck-sizing", dest="duck_sizing", action="store_false", help="trace models without duck sizing")
    p.add_argument("--no-specialize-01", dest="specialize_01", action="store_false",
                   help="trace models without 0/1 specialization")
    p.add_argument("--output", "-o", help="write to this file instead of stdout ('-': stdout)")
    return ap


DIFF_DESC = """Compare what A (old) and B (new) accept, as `symshape diff` does (docs/cli.md): both
implications decided, the guards added, dropped, narrowed, widened and restated with their
provenance in both versions, and witness sizes that one side accepts and the other rejects.
With --run, the model MODULE:CALLABLE is also run on the CPU at each witness."""

DIFF_EXIT_TABLE = """exit status:
  0  equal: both accept exactly the same sizes
  1  B narrows A: B rejects a size A accepts (B may also widen)
  2  usage error
  3  bad input (unreadable file, malformed model or guard set, --run model cannot be loaded)
  4  internal: libsymshape cannot be loaded, out of memory
  5  unknown: an implication was neither proved nor refuted
  6  B only widens A: B accepts every size A accepts, and more
"""


def _diff_text(r, ran):
    out = []
    for k in ("a", "b"):
        s = r["sides"][k]
        out.append("%s: %s (%d guards%s)" % (k.upper(), _line(s["model"]), len(s["guards"]), "; accepts nothing" if s["empty"] else ""))
    out.append("A accepts only what B accepts (A <= B): %s" % r["a_subset_b"])
    out.append("B accepts only what A accepts (B <= A): %s" % r["b_subset_a"])
    out.append("verdict: %s" % r["verdict"])

    def wit(indent, w):
        if not w:
            return
        shapes = " ".join("%s=%s" % (_line(k), v["shape"]) for k, v in w["inputs"].items())
        acc = w["accepted_by"].upper()
        out.append("%switness: %s accepts, %s rejects: %s" % (indent, acc, "B" if acc == "A" else "A", shapes))
        if w["rejected_by"]:
            out.append("%s  first failing guard: #%d %s" % (indent, w["rejected_by"]["index"], _line(w["rejected_by"]["text"])))
        if id(w) in ran:
            out.append("%s  --run: %s" % (indent, _line(ran[id(w)])))

    wit("  narrowing ", r["narrowing_witness"])
    wit("  widening ", r["widening_witness"])
    if r["changes"]:
        out.append("changes:")
    for c in r["changes"]:
        out.append("  %s (implied by the other side: %s)" % (c["change"], c["implied_by_other"]))
        for k in ("a", "b"):
            g = c[k]
            if g:
                out.append("    %s #%d [%s] %s" % (k.upper(), g["index"], g["kind"], _line(g["text"])))
                if g["why"]:
                    out.append("      why: %s" % _line(g["why"]))
                if g["origin"]:
                    out.append("      origin: %s" % _line(g["origin"]))
        wit("    ", c["witness"])
    return "\n".join(out) + "\n"


def _run_diff(args):
    maps = {}
    for m in args.map:
        if "=" not in m or not m.split("=", 1)[0] or not m.split("=", 1)[1]:
            raise _Usage("--map expects OLD=NEW input names (got %r)" % m)
        k, v = m.split("=", 1)
        maps[k] = v
    try:
        from .diff import diff, exit_status
    except LibraryNotFound as e:
        raise _Internal(str(e)) from None
    model = None
    if args.run:
        fn = _load_callable(args.run)
        try:
            model = fn() if isinstance(fn, type) or not _is_plain_function(fn) else fn
        except Exception as e:
            raise _Input("%s: building the model failed: %s" % (args.run, _exc_line(e))) from None
    try:
        r = diff(args.a, args.b, map=maps, duck_sizing=args.duck_sizing, specialize_01=args.specialize_01)
    except OSError as e:
        raise _Input("cannot read %s: %s" % (e.filename, e.strerror or e)) from None
    except ValueError as e:
        raise _Input("malformed JSON: %s" % e) from None
    except NoMemoryError:
        raise _Internal("out of memory") from None
    except Error as e:
        raise _Input(str(e)) from None
    ran = {}
    if model is not None:
        import torch
        if isinstance(model, torch.nn.Module):
            model.eval()
        ws = [r["narrowing_witness"], r["widening_witness"]] + [c["witness"] for c in r["changes"]]
        for w in ws:
            if not w:
                continue
            try:
                with torch.no_grad():
                    model(**{k: torch.randn(*v["shape"]) for k, v in w["inputs"].items()})
                ran[id(w)] = "the model runs"
                w["run"] = {"runs": True}
            except Exception as e:
                ran[id(w)] = "the model fails: " + _exc_line(e)
                w["run"] = {"runs": False, "error": _exc_line(e)}
    data = json.dumps(r, indent=2) + "\n" if args.json else _diff_text(r, ran)
    if args.output is None or args.output == "-":
        sys.stdout.write(data)
        sys.stdout.flush()
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(data)
        except OSError as e:
            raise _Input("cannot write %s: %s" % (args.output, e.strerror or e)) from None
    return exit_status(r)


def _binding():
    """(trace, backends) from the binding: _Internal with one line when the library is missing."""
    try:
        from .guards import trace, backends
    except LibraryNotFound as e:
        raise _Internal(str(e)) from None
    return trace, backends


class _Internal(Exception):
    pass


@contextlib.contextmanager
def _lib_errors(where):
    """The library's errors in a command: out of memory is internal (EX_INTERNAL), any other
    error is the input's (EX_INPUT), named by ``where`` (the model or file)."""
    try:
        yield
    except NoMemoryError:
        raise _Internal("out of memory") from None
    except Error as e:
        raise _Input("%s: %s" % (where, e)) from None


def main(argv=None):
    ap = _build_parser()
    args = ap.parse_args(argv)
    sub = ap._subparsers._group_actions[0].choices[args.cmd]
    stage = _Stage(args.cmd, getattr(args, "quiet", False))
    try:
        try:
            return _run_diff(args) if args.cmd == "diff" else _run(args, stage)
        finally:
            stage.end()  # before any message
    except _Usage as e:
        sub.error(str(e))
    except _Input as e:
        print("symshape: error: %s" % e, file=sys.stderr)
        return EX_INPUT
    except _Internal as e:
        print("symshape: error: %s" % e, file=sys.stderr)
        return EX_INTERNAL
    except KeyboardInterrupt:
        print("symshape: interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        print("symshape: error: out of memory", file=sys.stderr)
        return EX_INTERNAL


def _run(args, stage):
    if args.cmd in ("region", "corners", "profile", "memory") and args.callable.endswith(".onnx"):
        return _deploy_onnx(args)
    if not args.input:
        raise _Usage("at least one --input NAME=D,D,... is required (one per argument of the model)")
    inputs = {}
    for t in args.input:
        k, v = _parse_input(t)
        if k in inputs:
            raise _Usage("--input %s given twice" % k)
        inputs[k] = v
    dynamic = None
    if args.dynamic is not None:
        from ._dynamic import normalize_dynamic_dims
        dynamic = {}
        for t in args.dynamic:
            if "=" not in t:
                raise _Usage("--dynamic %r: expected NAME=SPEC (e.g. x=0:batch,2:h)" % t)
            k, v = t.split("=", 1)
            k = k.strip()
            if k not in inputs:
                raise _Usage("--dynamic %r: no --input named %s" % (t, k))
            if inputs[k][0] == "int":
                raise _Usage("--dynamic %r: input %s is an int, not a tensor" % (t, k))
            try:
                dims = normalize_dynamic_dims(k, v)
            except ExportError as e:
                raise _Usage("--dynamic %r: %s" % (t, e.reason)) from None
            for d in dims:
                d = d["dim"] if isinstance(d, dict) else d
                rank = len(inputs[k][1])
                if not -rank <= d < rank:
                    raise _Usage("--dynamic %r: input %s has %d dims, no dim %d" % (t, k, rank, d))
            dynamic[k] = dims
    out = getattr(args, "output", None)
    to_stdout = out is None or out == "-"
    trace = None
    if args.cmd == "report":
        trace, backends = _binding()
        known = backends()
        if args.backend not in known:
            raise _Usage("unknown backend '%s'; known: %s" % (args.backend, " ".join(known)))
        if to_stdout and args.backend == "bytecode" and sys.stdout.isatty():
            raise _Usage("the bytecode backend writes binary: give -o FILE (or redirect stdout)")
    try:
        import torch
    except ImportError as e:
        raise _Internal("%s needs PyTorch: import torch failed: %s" % (args.cmd, e)) from None
    from .exporter import export
    stage("importing " + args.callable)
    fn = _load_callable(args.callable)
    try:
        model = fn() if isinstance(fn, type) or not _is_plain_function(fn) else fn
    except Exception as e:
        raise _Input("%s: building the model failed: %s" % (args.callable, _exc_line(e))) from None
    if isinstance(model, torch.nn.Module):
        model.eval()
    elif not callable(model):
        raise _Input("%s: calling it gave a %s, not a model (an nn.Module or a function)" %
                     (args.callable, type(model).__name__))
    g = torch.Generator().manual_seed(args.seed)
    ex = {}
    for k, v in inputs.items():
        if v[0] == "int":
            ex[k] = v[1]
            continue
        try:  # a tuple: `NAME=` is a 0-d tensor; too many elements is torch's error, one line
            if v[2] in ("float32", "float64", "float16", "bfloat16"):
                ex[k] = torch.randn(tuple(v[1]), generator=g, dtype=getattr(torch, v[2]))
            else:
                ex[k] = torch.randint(0, 2, tuple(v[1]), generator=g, dtype=getattr(torch, v[2]))
        except (RuntimeError, MemoryError, OverflowError, ValueError) as e:
            raise _Input("--input %s=%s: cannot make the example tensor: %s" % (k, ",".join(map(str, v[1])), _exc_line(e))) from None
    name = args.name or args.callable.split(":", 1)[1]
    if getattr(args, "capture", "fx") == "export":
        stage("exporting %s (torch.export)" % name)
        doc = _capture_export(args, model, ex, dynamic, name)
    else:
        stage("exporting %s (torch.fx, running the model)" % name)
        doc = None
    try:
        if doc is None:
            doc = export(model, ex, dynamic=dynamic, name=name)
    except ExportError as e:
        raise _Input("%s: cannot export: %s" % (args.callable, e)) from None
    except Exception as e:  # the exporter turns the model's failures into ExportError; anything else is said too
        raise _Input("%s: cannot export: %s" % (args.callable, _exc_line(e))) from None
    if args.cmd == "export":
        stage("writing %s (%d nodes)" % (args.output, len(doc["nodes"])))
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
        except OSError as e:
            raise _Input("cannot write %s: %s" % (args.output, e.strerror or e)) from None
        stage.end()
        print("symshape: wrote %s (%d nodes)" % (args.output, len(doc["nodes"])), file=sys.stderr)
        return EX_OK
    if args.cmd in ("region", "corners", "profile", "memory"):
        return _deploy(args, model, doc, inputs)
    try:
        stage("tracing %d nodes, producing and minimizing the guards" % len(doc["nodes"]))
        gs = trace(doc, duck_sizing=args.duck_sizing, specialize_01=args.specialize_01)
        stage("rendering (%s)" % args.backend)
        data = gs.render(args.backend)
        violations = gs.violations
    except NoMemoryError:
        raise _Internal("out of memory") from None
    except Error as e:
        raise _Input("%s: %s" % (args.callable, e)) from None
    stage.end()
    if to_stdout:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        try:
            with open(out, "wb") as f:
                f.write(data)
        except OSError as e:
            raise _Input("cannot write %s: %s" % (out, e.strerror or e)) from None
    # after rendering everything: a violated dynamic-dim spec is exit 1 (torch.export raises), as `symshape run`
    if violations:
        n = len(violations)
        print("symshape: %d violation%s of the dynamic-dim spec (see the report's \"Dynamic-dim spec\")" %
              (n, "" if n == 1 else "s"), file=sys.stderr)
        return EX_VIOLATION
    return EX_OK


# the renderings of `region -f` and `profile -f`, in the C command's order (deploy.py's tables)
REGION_FORMATS = ("text", "torch", "jax", "onnx", "spec", "json")
PROFILE_FORMATS = ("text", "trtexec", "ort", "torch-trt", "openvino", "json")


def _count_arg(opt, lo, hi):
    """an argparse type: an integer in lo .. hi, the error naming the option as the C command does"""
    def parse(text):
        try:
            v = int(text, 10)
        except ValueError:
            v = None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError("expected an integer in %d .. %d (got '%s')" % (lo, hi, text))
        return v
    parse.__name__ = opt.lstrip("-")
    return parse


def _bytes_arg(text):
    """'1G', '16GiB', '512M', '1000' -> bytes (k/M/G/T: powers of 1024), as `symshape memory --bytes`"""
    m = re.fullmatch(r"([0-9]+)(?:([kKMGT])(iB|B)?)?", text)
    v = int(m.group(1)) << {None: 0, "k": 10, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2)] if m else -1
    if not 0 <= v < 2 ** 64:
        raise argparse.ArgumentTypeError("--bytes: expected N, NkB, NM, NG or NT (got '%s')" % text)
    return v


def _range_arg(text):
    """'x_0=1..8' -> ('x_0', 1, 8), as `symshape memory --range`"""
    m = re.fullmatch(r"([^=]+)=([0-9]+)\.\.([0-9]+)", text)
    if not m or int(m.group(2)) > int(m.group(3)):
        raise argparse.ArgumentTypeError("expected NAME=LO..HI with 0 <= LO <= HI (got '%s')" % text)
    return m.group(1), int(m.group(2)), int(m.group(3))


def _pick_formats(texts, wanted, order, skip_in_all):
    """the texts of the formats asked for (-f, repeated; 'all': every one but skip_in_all), in the
    table's order, each under '== NAME ==' when there are several (as the C command prints them)"""
    wanted = wanted or ["text"]
    names = [n for n in order if ("all" in wanted and n != skip_in_all) or n in wanted]
    if len(names) == 1:
        return texts[names[0]]
    return "\n".join("== %s ==\n%s" % (n, texts[n]) for n in names)


def _profile(args, gs):
    from .deploy import profiles
    hist = None
    if args.histogram is not None:
        try:
            with open(args.histogram) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise _Input("%s: %s" % (args.histogram, e)) from None
        if isinstance(data, dict) and isinstance(data.get("points"), list):
            data = [{"sizes": p.get("sizes") if isinstance(p, dict) else None, "count": 1} for p in data["points"]]
        if not isinstance(data, list):
            raise _Input('%s: expected a JSON list of {"sizes": {INPUT: [D, ...]}, "count": N}' % args.histogram)
        hist = []
        for i, e in enumerate(data):
            if not isinstance(e, dict) or not isinstance(e.get("sizes"), dict):
                raise _Input('%s: entry %d: expected {"sizes": {INPUT: [D, ...]}, "count": N}' % (args.histogram, i))
            hist.append({"sizes": e["sizes"], "count": e.get("count", 1)})
    with _lib_errors(args.histogram or args.callable):
        p = profiles(gs, hist if hist is not None else [], k=args.profiles,  # none: the one box of the region
                     max_size=args.max_size)
    sys.stdout.write(_pick_formats(p["texts"], args.format, PROFILE_FORMATS, "json"))
    sys.stdout.flush()
    return EX_OK if p["data"]["profiles"] else EX_VIOLATION


def _fix_arg(text):
    """'x_1=2048' -> ('x_1', 2048), as `symshape memory --fix`"""
    name, eq, v = text.partition("=")
    if not eq or not name or not v.isdigit():
        raise argparse.ArgumentTypeError("--fix: expected NAME=V with V a size (got %r)" % text)
    return name, int(v)


def _relation_arg(text):
    """'x_1=4*x_0' -> ('x_1', '4*x_0'), as `symshape memory --relation`"""
    name, eq, e = text.partition("=")
    if not eq or not name or not e:
        raise argparse.ArgumentTypeError("--relation: expected NAME=A*VAR+B (got %r)" % text)
    return name, e


def _deploy_onnx(args):
    """`region|profile|corners|memory MODEL.onnx`: the C library's ONNX frontend, as `symshape CMD MODEL.onnx`"""
    from .deploy import OnnxModel, Region
    if args.input or args.dynamic:
        raise _Usage("%s MODEL.onnx: --input and --dynamic are for MODULE:CALLABLE (the ONNX file declares its dims)"
                     % args.cmd)
    if args.cmd == "corners" and args.run:
        raise _Usage("corners MODEL.onnx: --run runs a PyTorch model (MODULE:CALLABLE); an ONNX model's corners are "
                     "printed (--json: as `symshape corners --json`) to run with onnxruntime")
    import warnings
    from .deploy import RelatedExampleWarning
    with _lib_errors(args.callable), warnings.catch_warnings():
        warnings.simplefilter("ignore", RelatedExampleWarning)  # said below as the C command says it
        gs = OnnxModel(args.callable)
    if gs.related:
        print("symshape: note: %s: the model does not run at the example (224 for every dim); traced at %s"
              % (args.callable, gs.related), file=sys.stderr)
    try:
        if args.cmd == "memory":
            return _memory_cmd(args, gs, None)
        if args.cmd == "profile":
            return _profile(args, gs)
        with _lib_errors(args.callable):
            region = Region(gs)
        if args.cmd == "region":
            return _region_out(region, args)
        sys.stdout.write(region.corners_json if args.json else region.corners_text())
        sys.stdout.flush()
        return EX_OK
    finally:
        gs.close()


def _region_out(region, args):
    sys.stdout.write(_pick_formats(region.texts, args.format, REGION_FORMATS, "json"))
    sys.stdout.flush()
    return EX_OK if region.proved else EX_VIOLATION


def _memory_cmd(args, gs, region):
    from .deploy import memory_report
    try:
        if args.total and args.live:
            raise ValueError("--total and --live: choose one")
        if len(args.range) > 8 or len(args.bytes) > 8:
            raise ValueError("--range and --bytes: at most 8 each")
        if len(args.fix) > 8 or len(args.relation) > 8:
            raise ValueError("--fix and --relation: at most 8 each")
        for what, lst in (("--fix", args.fix), ("--relation", args.relation)):
            seen = [n for n, _ in lst]
            for n in seen:
                if seen.count(n) > 1:
                    raise ValueError("%s: '%s' is given twice (--fix, --relation)" % (what, n))
        text = memory_report(gs, var=args.var, budgets=args.bytes, total=args.total, top=args.top, live=args.live,
                             ranges={n: (a, b) for n, a, b in args.range}, fix=dict(args.fix), relations=dict(args.relation))
    except NoMemoryError:
        raise _Internal("out of memory") from None
    except ValueError as e:
        raise _Usage(str(e)) from None
    except Error as e:
        raise _Input("%s: %s" % (args.callable, e)) from None
    sys.stdout.write(text)
    sys.stdout.flush()
    return EX_OK


def _deploy(args, model, doc, inputs):
    """region / corners (docs/deploy.md) of an exported model"""
    trace, _ = _binding()
    from .deploy import Region, run_corners
    with _lib_errors(args.callable):
        gs = trace(doc, duck_sizing=False, specialize_01=False)
        region = Region(gs)
    if args.cmd == "region":
        return _region_out(region, args)
    if args.cmd == "profile":
        return _profile(args, gs)
    if args.cmd == "memory":
        return _memory_cmd(args, gs, region)
    if args.json and not args.run:
        sys.stdout.write(region.corners_json)
        return EX_OK
    if not args.run:
        for c in region.corners:
            print("%-48s %s  %s" % (_line(c["label"]), json.dumps(c["sizes"], separators=(",", ":")),
                                    "accepted" if c["accept"] else "rejected: " + _line(c["guard"])))
        return EX_OK
    import torch

    def make(sizes):
        kw = {}
        for k, shp in sizes.items():
            dt = inputs[k][2] if k in inputs and inputs[k][0] != "int" else "float32"
            if dt in ("float32", "float64", "float16", "bfloat16"):
                kw[k] = torch.randn(*shp, dtype=getattr(torch, dt))
            else:
                kw[k] = torch.randint(0, 2, shp, dtype=getattr(torch, dt))
        for k, v in inputs.items():
            if v[0] == "int":
                kw[k] = v[1]
        return kw
    rows, unsound, conservative = run_corners(region, model, make)
    for c, ran, err in rows:
        verdict = ("accepted, ran" if c["accept"] and ran else "ACCEPTED BUT FAILED: " + _line(err) if c["accept"]
                   else "rejected, runs (conservative): " + _line(c["guard"]) if ran else "rejected, fails: " + _line(c["guard"]))
        print("%-48s %s  %s" % (_line(c["label"]), json.dumps(c["sizes"], separators=(",", ":")), verdict))
    print("%d corners: %d accepted where the model fails, %d rejected where it runs" %
          (len(rows), len(unsound), len(conservative)))
    return EX_VIOLATION if unsound else EX_OK


def _export_dims(dynamic, ex):
    """torch.export dynamic_shapes from the --dynamic specs: a named dim is Dim(NAME, min, max)
    (one Dim object per name, so a shared name is one Dim), a bare index or an unnamed range
    Dim.AUTO (an unnamed range: Dim of a generated name with that range); without --dynamic
    every dim of every tensor input is Dim.AUTO."""
    import torch
    from torch.export import Dim
    named = {}
    out = {}
    for k, v in ex.items():
        if not isinstance(v, torch.Tensor):
            continue
        if dynamic is None:
            out[k] = {i: Dim.AUTO for i in range(v.dim())}
            continue
        spec = {}
        for d in dynamic.get(k, []):
            i = d["dim"] if isinstance(d, dict) else d
            i = i + v.dim() if i < 0 else i
            if not isinstance(d, dict):
                spec[i] = Dim.AUTO
                continue
            nm = d.get("name") or "%s_d%d" % (k, i)
            lo, hi = d.get("min"), d.get("max")
            if nm in named:
                if (named[nm][1], named[nm][2]) != (lo, hi) and (lo is not None or hi is not None):
                    raise _Usage("--dynamic: dim name %s is given two ranges" % nm)
                spec[i] = named[nm][0]
                continue
            kw = {}
            if lo is not None:
                kw["min"] = lo
            if hi is not None:
                kw["max"] = hi
            named[nm] = (Dim(nm, **kw), lo, hi)
            spec[i] = named[nm][0]
        out[k] = spec if spec else None
    return out


def _capture_export(args, model, ex, dynamic, name):
    """--capture export: torch.export.export(model, (), ex, dynamic_shapes=...), decomposed to
    core ATen, read by symshape.from_exported."""
    import torch
    if not hasattr(torch, "export") or not hasattr(torch.export, "Dim"):
        raise _Input("--capture export needs PyTorch 2.x (torch.export); torch %s here" % torch.__version__)
    from .export_program import from_exported_doc, _engine_ops
    ds = _export_dims(dynamic, ex)
    if not isinstance(model, torch.nn.Module):
        model = _as_module(model)  # torch.export takes modules only ('Expected `mod` to be ...')
    try:
        with torch.no_grad():
            ep = torch.export.export(model, (), kwargs=ex, dynamic_shapes=ds).run_decompositions()
    except Exception as e:  # torch.export's own errors (constraint violations, untraceable code)
        raise _Input("%s: torch.export failed: %s" % (args.callable, _exc_line(e))) from None
    # the document's dynamic-dim spec is the user's --dynamic (without it: every dim, unnamed), not
    # the program's Dim.AUTO symbols (s53 in [2, oo)): the report's spec check and exit status follow
    # what the user declared, and torch.export's own guards are labelled as its (guard_bool)
    user = dynamic if dynamic is not None else {k: list(range(v.dim())) for k, v in ex.items()
                                                if isinstance(v, torch.Tensor)}
    try:
        return from_exported_doc(ep, dynamic=user, name=name, engine_ops=_engine_ops(), user_spec=True)
    except ExportError as e:
        raise _Input("%s: cannot read the exported program: %s" % (args.callable, e)) from None


def _as_module(fn):
    """a plain function as an nn.Module whose forward has the function's parameters (torch.export
    reads the forward's signature to match the dynamic_shapes to the inputs)"""
    import inspect
    import torch

    class _Function(torch.nn.Module):
        def forward(self, *a, **k):
            return fn(*a, **k)
    sig = inspect.signature(fn)
    self_p = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    _Function.forward.__signature__ = sig.replace(parameters=[self_p] + list(sig.parameters.values()))
    return _Function()


def _is_plain_function(fn):
    """A function whose first parameter looks like a tensor input (not a model factory).
    Factories (torchvision.models.resnet18, classes) take no required arguments."""
    import inspect
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in sig.parameters.values())


if __name__ == "__main__":
    sys.exit(main())
