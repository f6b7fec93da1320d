/* Integer points of linear equations (lattice.c): the .cases runner's Diophantine witnesses.
 * Not installed, not part of the public API. */
#ifndef SY_ALGEBRA_LATTICE_H
#define SY_ALGEBRA_LATTICE_H
#include <flint/fmpz.h>

#include "algebra/internal.h"

/* Called with the values of the symbols (vals[0..nsyms), borrowed for the call); a negative
 * return stops the enumeration. */
typedef int (*sy_lattice_fn)(void *ud, const fmpz *vals);

/* The integer points where every eqs[i] equals offs[i] (offs NULL: 0), nearest the preferred
 * values pref[0..nsyms) of syms[0..nsyms) (SYM nodes, distinct) inside their ranges lo[i] ..
 * hi[i] (INT nodes; NULL arrays or entries: unbounded): the point of the lattice of solutions
 * nearest pref (Babai's rounding on the LLL-reduced kernel), moved into the ranges one kernel
 * direction at a time, then the box around it (points outside the ranges skipped),
 * at most max points, then up to max points inside every range found level by level over the
 * kernel in Hermite form (tightest ranges first, at most 16*max search nodes), each passed to
 * fn (a point can come twice). An equation is linear in the symbols and in
 * FloorDiv / Mod / CeilDiv atoms of a linear P by a nonzero constant (each P = m*q + r, a point
 * with r outside [0, m) skipped); nothing is enumerated when one of them is not, when a symbol
 * outside syms occurs, when the equations have no integer solution (Hermite normal form), or
 * past 30 symbols, 24 equations, 32 unknowns. Deterministic. Errors: SY_ENOMEM (recorded). */
sy_status sy_lattice_points(sy_ctx *ctx, const sy_expr *const *eqs, const slong *offs, size_t neq,
                            const sy_expr *const *syms, const fmpz *pref, const sy_expr *const *lo,
                            const sy_expr *const *hi, size_t nsyms, size_t max, sy_lattice_fn fn, void *ud);
#endif
