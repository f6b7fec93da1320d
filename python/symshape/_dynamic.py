"""Dynamic-dim specs shared by the exporter and trace() (no torch needed)."""
import re

from .errors import ExportError

__all__ = ["normalize_dynamic_dims"]

_SPEC_RE = re.compile(r"^\s*(-?\d+)\s*(?::\s*([A-Za-z_][A-Za-z0-9_]*))?\s*(?:@\s*(\d+)?\s*\.\.\s*(\d+)?)?\s*$")


def _check_range(name, d, lo, hi):
    """A declared range with min >= max: torch.export's Dim asserts max > min ("Cannot create Dim
    with inconsistent min=3, max=3", torch/export/dynamic_shapes.py); the CLI's --dynamic and
    the graph reader refuse it too."""
    if lo is not None and hi is not None and lo >= hi:
        raise ExportError("dynamic['%s']: %r: the range [%d, %d] %s: a dynamic dim needs min < max (as torch.export's "
                          "Dim); a dim of one size is static" % (name, d, lo, hi, "is empty" if lo > hi else "holds one size"))


def normalize_dynamic_dims(name, dims):
    """The "dynamic" list of input ``name`` from a user's spec: a list whose entries are dim
    indices (int), dynamic-dim objects {"dim", "name"?, "min"?, "max"?} (issue 13's form, passed
    through), or strings "D[:NAME][@MIN..MAX]"; a whole string "0:batch@1..1024,2:h" (the CLI
    form after NAME=) is split on commas. Raises ExportError on a malformed entry."""
    if isinstance(dims, str):
        dims = [d for d in dims.split(",") if d.strip()]
    if isinstance(dims, int) and not isinstance(dims, bool):
        dims = [dims]
    if not isinstance(dims, (list, tuple)):
        raise ExportError("dynamic['%s'] must be a list of dims, got %s" % (name, type(dims).__name__))
    out = []
    for d in dims:
        if isinstance(d, bool):
            raise ExportError("dynamic['%s']: %r is not a dim" % (name, d))
        if isinstance(d, int):
            out.append(d)
        elif isinstance(d, dict):
            bad = set(d) - {"dim", "name", "min", "max"}
            if bad or not isinstance(d.get("dim"), int) or isinstance(d.get("dim"), bool):
                raise ExportError("dynamic['%s']: %r must be {\"dim\": int, \"name\"?: str, \"min\"?: int, "
                                  "\"max\"?: int}" % (name, d))
            for k in ("min", "max"):
                if k in d and d[k] is not None and (isinstance(d[k], bool) or not isinstance(d[k], int)):
                    raise ExportError("dynamic['%s']: %s of %r must be an int" % (name, k, d))
            _check_range(name, d, d.get("min"), d.get("max"))
            if "name" in d and not isinstance(d["name"], str):
                raise ExportError("dynamic['%s']: name of %r must be a str" % (name, d))
            out.append(dict(d) if len(d) > 1 else d["dim"])
        elif isinstance(d, str):
            m = _SPEC_RE.match(d)
            if not m:
                raise ExportError("dynamic['%s']: %r is not D[:NAME][@MIN..MAX]" % (name, d))
            o = {"dim": int(m.group(1))}
            if m.group(2):
                o["name"] = m.group(2)
            if m.group(3):
                o["min"] = int(m.group(3))
            if m.group(4):
                o["max"] = int(m.group(4))
            _check_range(name, d, o.get("min"), o.get("max"))
            out.append(o if len(o) > 1 else o["dim"])
        else:
            raise ExportError("dynamic['%s']: %r is not a dim" % (name, d))
    return out


