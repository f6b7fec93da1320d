"""python3 -m symshape: export a model from Python code and print its guard report.

  python3 -m symshape report MODULE:CALLABLE --input NAME=D,D,... [--input ...]
                             [--dynamic NAME=SPEC] [--backend NAME] [--name NAME]
  python3 -m symshape export MODULE:CALLABLE --input NAME=D,D,... [...] -o G.json

MODULE:CALLABLE is imported and called with no arguments to build the model (an nn.Module is
put in eval mode); a callable that is not an nn.Module class/factory but a plain function is
exported as it is. Each --input makes a random float32 tensor of that shape (NAME=D,D,...:int64
for an integer tensor, NAME=int:V for an int argument). --dynamic NAME=SPEC lists the dynamic
dims of one input: indices "0,2,3" or the dynamic-dim spec form "0:batch@1..1024,2:h"; without
--dynamic every dim of every tensor input is dynamic; with it, inputs not named are static.
Exit status: 0 success, 1 the model could not be exported or traced (message on stderr),
2 usage error.
"""
import argparse
import importlib
import json
import sys

from .errors import Error, ExportError


def _parse_input(text):
    if "=" not in text:
        raise ValueError("--input %r: expected NAME=D,D,..." % text)
    name, spec = text.split("=", 1)
    name = name.strip()
    dtype = "float32"
    if spec.startswith("int:"):
        try:
            return name, ("int", int(spec[4:]))
        except ValueError:
            raise ValueError("--input %r: int:V needs an integer V" % text) from None
    if ":" in spec:
        spec, dtype = spec.rsplit(":", 1)
    try:
        dims = [int(d) for d in spec.split(",") if d.strip() != ""]
    except ValueError:
        raise ValueError("--input %r: sizes must be integers" % text) from None
    if any(d < 0 for d in dims):
        raise ValueError("--input %r: sizes must be >= 0" % text)
    return name, ("tensor", dims, dtype)


def _load_callable(ref):
    if ":" not in ref:
        raise ValueError("%r: expected MODULE:CALLABLE (e.g. torchvision.models:resnet18)" % ref)
    mod, attr = ref.split(":", 1)
    obj = importlib.import_module(mod)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m symshape", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for cmd in ("report", "export"):
        p = sub.add_parser(cmd, help=("print the guard report of a model" if cmd == "report"
                                      else "write the model's graph JSON"))
        p.add_argument("callable", metavar="MODULE:CALLABLE")
        p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=D,D,...", required=True)
        p.add_argument("--dynamic", "-d", action="append", default=None, metavar="NAME=SPEC")
        p.add_argument("--name", help="model name in the graph (default: the callable's name)")
        p.add_argument("--seed", type=int, default=0, help="seed of the random example tensors (default 0)")
        if cmd == "report":
            p.add_argument("--backend", "-b", default="report",
                           help="report (default), markdown, json, c, bytecode")
            p.add_argument("--output", "-o", help="write to this file instead of stdout")
        else:
            p.add_argument("--output", "-o", required=True, help="the graph JSON file to write")
    args = ap.parse_args(argv)
    try:
        inputs = dict(_parse_input(t) for t in args.input)
        dynamic = None
        if args.dynamic is not None:
            dynamic = {}
            for t in args.dynamic:
                if "=" not in t:
                    raise ValueError("--dynamic %r: expected NAME=DIMS" % t)
                k, v = t.split("=", 1)
                if k not in inputs:
                    raise ValueError("--dynamic %r: no --input named %s" % (t, k))
                from ._dynamic import normalize_dynamic_dims
                dynamic[k.strip()] = normalize_dynamic_dims(k, v)
    except (ValueError, ExportError) as e:
        ap.error(str(e))
    try:
        import torch
        from .exporter import export
        fn = _load_callable(args.callable)
        model = fn() if isinstance(fn, type) or not _is_plain_function(fn) else fn
        if isinstance(model, torch.nn.Module):
            model.eval()
        g = torch.Generator().manual_seed(args.seed)
        ex = {}
        for k, v in inputs.items():
            if v[0] == "int":
                ex[k] = v[1]
            elif v[2] in ("float32", "float", "float64", "double", "float16", "half", "bfloat16"):
                dt = {"float": "float32", "double": "float64", "half": "float16"}.get(v[2], v[2])
                ex[k] = torch.randn(*v[1], generator=g, dtype=getattr(torch, dt))
            else:
                ex[k] = torch.randint(0, 2, v[1], generator=g, dtype=getattr(torch, v[2]))
        name = args.name or args.callable.split(":", 1)[1]
        doc = export(model, ex, dynamic=dynamic, name=name)
        if args.cmd == "export":
            with open(args.output, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
            print("symshape: wrote %s (%d nodes)" % (args.output, len(doc["nodes"])), file=sys.stderr)
            return 0
        from .guards import trace
        gs = trace(doc)
        data = gs.render(args.backend)
        if args.output:
            with open(args.output, "wb") as f:
                f.write(data)
        else:
            if args.backend == "bytecode" and sys.stdout.isatty():
                print("symshape: refusing to write bytecode to a terminal; use -o FILE", file=sys.stderr)
                return 2
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        return 0
    except (Error, ExportError) as e:
        print("symshape: error: %s" % e, file=sys.stderr)
        return 1
    except (ImportError, AttributeError) as e:
        print("symshape: error: cannot load %s: %s" % (args.callable, e), file=sys.stderr)
        return 1


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
