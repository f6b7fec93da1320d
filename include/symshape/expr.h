/**
 * @file symshape/expr.h
 * @brief Canonical, hash-consed symbolic integer expressions.
 *
 * ## Model
 * An expression is an immutable node owned by its context (sy_ctx). Nodes are
 * hash-consed: two expressions with the same canonical form are the same
 * pointer, so `a == b` is equality and hashing is O(1). Nodes are never freed
 * individually; they live until sy_ctx_free(). Pointers are `const` everywhere.
 *
 * Canonical form (docs/algebra.md has every rule and its proof):
 *  - an integer expression is a polynomial with integer coefficients in
 *    *atoms* (symbols and the non-polynomial nodes FloorDiv, Mod, CeilDiv, Min,
 *    Max), expanded, like terms collected, constants folded;
 *  - a relation is `d == 0`, `d != 0` or `d <= 0` with d a polynomial whose
 *    integer content is 1 (`a < b` is `a - b + 1 <= 0`; Gt/Ge swap sides);
 *    `Not` is pushed into relations, And/Or are flattened, sorted and
 *    duplicate-free, constants absorbed.
 *  Terms are ordered by content (then creation serial), never by address, so
 *  printed text is identical across runs.
 *
 * ## Semantics
 * Integers are unbounded. FloorDiv rounds toward minus infinity, Mod takes the
 * sign of the divisor (Python): FloorDiv(-7,2) = -4, Mod(-7,2) = 1,
 * Mod(7,-2) = -1. CeilDiv(a,b) = -FloorDiv(-a,b). Division by a divisor that is
 * the constant 0 is an error (SY_EDIVZERO); a symbolic divisor is assumed
 * non-zero wherever the expression is evaluated, and evaluation at a point
 * where it is zero fails with SY_EDIVZERO.
 *
 * ## Errors
 * Constructors return NULL on failure and record the status and a message in
 * the context (sy_ctx_last_error). Every constructor accepts NULL operands and
 * then returns NULL without touching the recorded error, so nested calls
 * propagate the first failure: `sy_expr_add(c, sy_expr_mul(c, a, b), d)`.
 * Possible failures of every constructor: SY_ENOMEM; SY_EINVAL for an integer
 * operand where a boolean is required or the reverse; SY_EDIVZERO for a
 * constant zero divisor; SY_EQUOTA when an expansion exceeds the context's
 * max_terms, max_exponent or max_const_bits.
 *
 * Thread safety: none within one context.
 */
#ifndef SYMSHAPE_EXPR_H
#define SYMSHAPE_EXPR_H
#include "symshape/types.h"

SY_BEGIN_DECLS

/** Node kinds that a canonical expression can have.
 *  Lt, Gt, Ge and Not are constructors only: over the integers they have exact
 *  normal forms as Le, Eq and Ne nodes. */
typedef enum sy_expr_kind {
    SY_EXPR_INT = 0,   /**< integer constant, arbitrary precision */
    SY_EXPR_SYM,       /**< symbol (a name) */
    SY_EXPR_ADD,       /**< c0 + sum(c_i * m_i): args are the monomials m_i */
    SY_EXPR_MUL,       /**< product of >= 2 factors (atoms or Pow), coefficient 1 */
    SY_EXPR_POW,       /**< atom ** k, k >= 2 */
    SY_EXPR_FLOORDIV,  /**< FloorDiv(a, b) */
    SY_EXPR_MOD,       /**< Mod(a, b) */
    SY_EXPR_CEILDIV,   /**< CeilDiv(a, b), only with a non-constant divisor */
    SY_EXPR_MIN,       /**< Min(a, b, ...) */
    SY_EXPR_MAX,       /**< Max(a, b, ...) */
    SY_EXPR_EQ,        /**< d == 0 (arg 0 is d) */
    SY_EXPR_NE,        /**< d != 0 */
    SY_EXPR_LE,        /**< d <= 0 */
    SY_EXPR_AND,       /**< And(r1, r2, ...) */
    SY_EXPR_OR,        /**< Or(r1, r2, ...) */
    SY_EXPR_TRUE,
    SY_EXPR_FALSE
} sy_expr_kind;

/** Relation operators for sy_expr_rel(). */
typedef enum sy_rel_op { SY_REL_EQ, SY_REL_NE, SY_REL_LT, SY_REL_LE, SY_REL_GT, SY_REL_GE } sy_rel_op;

/* ---------------------------------------------------------------- Construction */

/** The integer @p v. Small values never allocate a bignum. */
SY_API const sy_expr *sy_expr_int_si(sy_ctx *ctx, int64_t v);
/** The integer written in decimal in @p text (optional leading '-', digits
 *  only, any length). SY_EFORMAT if @p text is not such a number. */
SY_API const sy_expr *sy_expr_int_str(sy_ctx *ctx, const char *text);
/** The symbol named @p name (copied; KEEP). The name must match
 *  [A-Za-z_][A-Za-z0-9_]* and not be reserved (a function name, true, false,
 *  oo): otherwise SY_EINVAL. Equal names give the same node. */
SY_API const sy_expr *sy_expr_sym(sy_ctx *ctx, const char *name);
/** The constants true and false; sy_expr_bool(ctx, v) is true iff v != 0. */
SY_API const sy_expr *sy_expr_true(sy_ctx *ctx);
SY_API const sy_expr *sy_expr_false(sy_ctx *ctx);
SY_API const sy_expr *sy_expr_bool(sy_ctx *ctx, int v);

/** a + b, a - b, -a, a * b (expanded), for integer expressions. */
SY_API const sy_expr *sy_expr_add(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_sub(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_neg(sy_ctx *ctx, const sy_expr *a);
SY_API const sy_expr *sy_expr_mul(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
/** Sum / product of @p n expressions (array of n pointers, KEEP). n = 0 gives
 *  0 / 1. O(T log T) in the total number of terms T: use these rather than
 *  chains of binary calls for long sums. The product multiplies the
 *  constants, merges the factors of every monomial operand in one sort and
 *  expands only the sums (fewest terms first), so a product of n symbols
 *  costs O(n log n) and interns one monomial.
 *  @retval NULL on error (SY_EINVAL a boolean operand, SY_EQUOTA an exponent
 *          or term budget, SY_ENOMEM), recorded in the context. */
SY_API const sy_expr *sy_expr_add_n(sy_ctx *ctx, size_t n, const sy_expr *const *args);
SY_API const sy_expr *sy_expr_mul_n(sy_ctx *ctx, size_t n, const sy_expr *const *args);
/** a + c and c * a for a machine integer c. */
SY_API const sy_expr *sy_expr_add_si(sy_ctx *ctx, const sy_expr *a, int64_t c);
SY_API const sy_expr *sy_expr_mul_si(sy_ctx *ctx, const sy_expr *a, int64_t c);
/** a ** k, expanded. SY_EQUOTA when k exceeds the context's max_exponent or
 *  the expansion exceeds max_terms / max_const_bits. a ** 0 = 1. */
SY_API const sy_expr *sy_expr_pow_ui(sy_ctx *ctx, const sy_expr *a, uint64_t k);

/** FloorDiv(a, b), Mod(a, b), CeilDiv(a, b) with Python semantics, simplified
 *  by the construction rules of docs/algebra.md (each valid at every integer
 *  point where the divisor is non-zero). SY_EDIVZERO when b is the constant 0. */
SY_API const sy_expr *sy_expr_floordiv(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_mod(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_ceildiv(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);

/** Min / Max of two or of @p n >= 1 integer expressions (n = 0: SY_EINVAL). */
SY_API const sy_expr *sy_expr_min(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_max(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_min_n(sy_ctx *ctx, size_t n, const sy_expr *const *args);
SY_API const sy_expr *sy_expr_max_n(sy_ctx *ctx, size_t n, const sy_expr *const *args);

/** The relation `a op b` between integer expressions, normalised. */
SY_API const sy_expr *sy_expr_rel(sy_ctx *ctx, sy_rel_op op, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_eq(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_ne(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_lt(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_le(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_gt(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_ge(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);

/** Boolean connectives over boolean expressions (relations, And, Or, true,
 *  false). n = 0 gives true for And, false for Or. */
SY_API const sy_expr *sy_expr_and(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_or(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
SY_API const sy_expr *sy_expr_and_n(sy_ctx *ctx, size_t n, const sy_expr *const *args);
SY_API const sy_expr *sy_expr_or_n(sy_ctx *ctx, size_t n, const sy_expr *const *args);
SY_API const sy_expr *sy_expr_not(sy_ctx *ctx, const sy_expr *a);

/* ---------------------------------------------------------------- Inspection */

/** Kind of @p e (never NULL). */
SY_API sy_expr_kind sy_expr_kind_of(const sy_expr *e);
/** 1 if @p e is boolean-valued (relation, And, Or, true, false), else 0. */
SY_API int sy_expr_is_bool(const sy_expr *e);
/** 1 if @p e is an integer constant. */
SY_API int sy_expr_is_int(const sy_expr *e);
/** Number of children: Add: the non-constant terms; Mul: factors; Pow: 1
 *  (the base); FloorDiv/Mod/CeilDiv: 2; Min/Max/And/Or: operands; Eq/Ne/Le: 1
 *  (the polynomial d of `d op 0`); leaves: 0. */
SY_API size_t sy_expr_nargs(const sy_expr *e);
/** Child @p i (0-based, < sy_expr_nargs). For Add: the monomial of term i. */
SY_API const sy_expr *sy_expr_arg(const sy_expr *e, size_t i);
/** For Add: the coefficient of term @p i as an integer expression; for the
 *  constant term use sy_expr_add_const. NULL (SY_EINVAL) for other kinds. */
SY_API const sy_expr *sy_expr_add_coeff(sy_ctx *ctx, const sy_expr *e, size_t i);
SY_API const sy_expr *sy_expr_add_const(sy_ctx *ctx, const sy_expr *e);
/** Exponent of a Pow node (0 for other kinds). */
SY_API uint64_t sy_expr_pow_exp(const sy_expr *e);
/** Name of a symbol (KEEP, lives as long as the context); NULL otherwise. */
SY_API const char *sy_expr_sym_name(const sy_expr *e);
/** Dense index of a symbol in its context: 0, 1, ... in creation order. */
SY_API uint32_t sy_expr_sym_id(const sy_expr *e);
/** Read an integer constant.
 *  @retval SY_OK *out holds the value.
 *  @retval SY_EINVAL e is not an integer constant.
 *  @retval SY_EOVERFLOW the value does not fit int64_t. */
SY_API sy_status sy_expr_get_si(const sy_expr *e, int64_t *out);
/** Structural hash (stable across runs for the same construction). */
SY_API uint64_t sy_expr_hash(const sy_expr *e);
/** Creation serial number in the context. */
SY_API uint64_t sy_expr_serial(const sy_expr *e);
/** Total order by content, then serial (never by address): < 0, 0, > 0. */
SY_API int sy_expr_cmp(const sy_expr *a, const sy_expr *b);

/* ---------------------------------------------------------------- Text */

/** Parse @p text (@p len bytes; len = (size_t)-1 means NUL-terminated) in the
 *  syntax of docs/algebra.md (Python precedence; `+ - * ** // %`, comparisons
 *  (chained), `and or not`, FloorDiv Mod CeilDiv Min Max Eq Ne Lt Le Gt Ge And
 *  Or Not, integers of any size).
 *  @param[out] out receives the canonical expression.
 *  @retval SY_OK
 *  @retval SY_EFORMAT syntax error, unknown function or wrong arity: the
 *          message says what was expected and sy_ctx_last_error_offset() gives
 *          the byte offset.
 *  @retval SY_EDIVZERO, SY_EQUOTA, SY_EINVAL as for the constructors (offset of
 *          the operator). */
SY_API sy_status sy_expr_parse(sy_ctx *ctx, const char *text, size_t len, const sy_expr **out);

typedef enum sy_print_style {
    SY_PRINT_CANONICAL = 0, /**< re-parses to the same node */
    SY_PRINT_PYTHON = 1,    /**< a valid Python expression (//, %, min, max, and/or) */
    SY_PRINT_C = 2          /**< C, with calls sy_floordiv/sy_mod/sy_ceildiv/sy_min/sy_max */
} sy_print_style;

/** Render @p e as text. Returns a NUL-terminated string (GIVE: release with
 *  sy_str_free) or NULL with SY_ENOMEM, or SY_EQUOTA when the text takes more
 *  than the context's work budgets (ctx.h: one step per node printed, the
 *  text's bytes count against max_work_bytes). The text of a DAG with shared
 *  subterms repeats each shared subterm at every use, so it can be
 *  exponentially longer than the DAG (a nested FloorDiv chain): see
 *  sy_expr_print_let and sy_expr_tree_size. */
SY_API SY_GIVE char *sy_expr_print(sy_ctx *ctx, const sy_expr *e, sy_print_style style);
/** Debug rendering that prints every shared subterm once: lines
 *  `let $K = TEXT` (K = 1, 2, ..., children before parents) followed by
 *  `in TEXT`, where a named subterm appears as `$K`; an expression without a
 *  shared composite subterm prints exactly as sy_expr_print. Time and size
 *  are linear in the number of distinct nodes. Not parseable; the canonical
 *  text is sy_expr_print's. GIVE: release with sy_str_free. NULL on error
 *  (SY_EINVAL, SY_ENOMEM, SY_EQUOTA as sy_expr_print). */
SY_API SY_GIVE char *sy_expr_print_let(sy_ctx *ctx, const sy_expr *e, sy_print_style style);
/** Text for messages and reports: sy_expr_print's canonical text when the
 *  tree @p e stands for has at most @p let_past nodes (sy_expr_tree_size),
 *  else sy_expr_print_let's let-form, so the text stays linear in the
 *  distinct nodes (a nested FloorDiv chain). GIVE: release with sy_str_free.
 *  NULL on error (SY_EINVAL, SY_ENOMEM, SY_EQUOTA as sy_expr_print). */
SY_API SY_GIVE char *sy_expr_print_bounded(sy_ctx *ctx, const sy_expr *e, sy_print_style style, uint64_t let_past);
/** Number of nodes of the tree @p e stands for, counting a shared subterm at
 *  each of its uses (what sy_expr_print's text grows with), saturated at
 *  UINT64_MAX. Linear in the distinct nodes (memoized per node).
 *  @retval SY_OK @retval SY_EINVAL NULL argument @retval SY_ENOMEM
 *  @retval SY_EQUOTA a work budget was spent. */
SY_API sy_status sy_expr_tree_size(sy_ctx *ctx, const sy_expr *e, uint64_t *out);
/** Release a string returned by the library. Accepts NULL; returns NULL. */
SY_API char *sy_str_free(sy_ctx *ctx, SY_TAKE SY_NULL char *s);
/** Release an array returned by the library. Accepts NULL; returns NULL. */
SY_API void *sy_mem_free(sy_ctx *ctx, SY_TAKE SY_NULL void *p);
/** Whether @p s is valid UTF-8 as RFC 3629 defines it (no overlong forms, no
 *  surrogates U+D800..U+DFFF, no code point past U+10FFFF), as a JSON string
 *  must be. Linear in the length. @return SY_TRUE or SY_FALSE; SY_BOOL_ERROR
 *  when @p s is NULL (no error is recorded: there is no context). */
SY_API sy_bool sy_str_is_utf8(SY_NULL const char *s);

/* ---------------------------------------------------------------- Operations */

/** Simultaneous substitution of @p n symbols (@p syms, array of n symbol
 *  nodes) by @p vals (array of n expressions of the same type), then
 *  canonicalisation. SY_EINVAL if a key is not a symbol. */
SY_API const sy_expr *sy_expr_subs(sy_ctx *ctx, const sy_expr *e, size_t n,
                                   const sy_expr *const *syms, const sy_expr *const *vals);

/** Exact evaluation at a point: @p syms (n symbol nodes) bound to @p vals (n
 *  integer constants). *out is an integer constant or true/false.
 *  @retval SY_OK
 *  @retval SY_EINVAL a symbol of e is unbound (the message names it), or a
 *          value is not an integer constant.
 *  @retval SY_EDIVZERO a divisor evaluates to 0 (the message shows it).
 *  @retval SY_EQUOTA a product or power along the way exceeds max_const_bits
 *          bits. */
SY_API sy_status sy_expr_eval(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                              const sy_expr *const *vals, const sy_expr **out);

/** Evaluation with int64 values: exact; booleans are 0/1.
 *  @retval SY_OK *out holds the value.
 *  @retval SY_EOVERFLOW the value (not an intermediate) does not fit int64;
 *          intermediates that overflow are recomputed with bignums.
 *  @retval SY_EINVAL, SY_EDIVZERO as for sy_expr_eval. */
SY_API sy_status sy_expr_eval_si(sy_ctx *ctx, const sy_expr *e, size_t n, const sy_expr *const *syms,
                                 const int64_t *vals, int64_t *out);

/** Visit every node reachable from @p root in post-order (a node after its
 *  children, sy_expr_arg 0..sy_expr_nargs-1: an Add's monomials, a Mul's
 *  factors, ...), with an explicit stack (any depth, no recursion).
 *  @p skip(ud, e) returning nonzero skips e and everything below it (the
 *  caller's "already visited": a DAG is then walked once, whatever its tree
 *  size); it is asked before e is entered. @p visit(ud, e) is called once e's
 *  children are done; a status other than SY_OK stops the walk and is
 *  returned. The stack is allocated with the context's allocator.
 *  @retval SY_OK every node was skipped or visited
 *  @retval SY_EINVAL a NULL argument @retval SY_ENOMEM
 *  @retval (other) what visit returned. */
SY_API sy_status sy_expr_walk_postorder(sy_ctx *ctx, const sy_expr *root, int (*skip)(void *ud, const sy_expr *e),
                                        sy_status (*visit)(void *ud, const sy_expr *e), void *ud);

/** The symbols occurring in @p e, sorted by sy_expr_cmp. *out receives an
 *  array of *n pointers (GIVE: release with sy_mem_free; NULL when n = 0). */
SY_API sy_status sy_expr_free_symbols(sy_ctx *ctx, const sy_expr *e, SY_GIVE const sy_expr ***out, size_t *n);

/** Degree of @p e as a polynomial in the atom @p x (a symbol or any atom
 *  node): 0 if x does not occur at polynomial level; x occurring only inside
 *  another atom (e.g. FloorDiv(x, 2)) does not count. -1 for the constant 0. */
SY_API long sy_expr_degree(const sy_expr *e, const sy_expr *x);
/** Coefficient of x**k in @p e viewed as a polynomial in the atom x. */
SY_API const sy_expr *sy_expr_coeff(sy_ctx *ctx, const sy_expr *e, const sy_expr *x, uint64_t k);

/** Greatest common divisor of two polynomials (integer expressions, atoms as
 *  variables), computed by FLINT's fmpz_mpoly_gcd, with a positive leading
 *  coefficient. gcd(0, 0) = 0. */
SY_API const sy_expr *sy_expr_poly_gcd(sy_ctx *ctx, const sy_expr *a, const sy_expr *b);
/** Exact polynomial division: SY_TRUE and *q = a / b when b divides a over
 *  the integers, SY_FALSE when it does not, SY_BOOL_ERROR on failure
 *  (SY_EDIVZERO when b is 0). */
SY_API sy_bool sy_expr_poly_divexact(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, const sy_expr **q);

SY_END_DECLS
#endif
