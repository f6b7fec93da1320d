/**
 * @file symshape/types.h
 * @brief Opaque handle types, status codes, ownership annotations.
 *
 * Every public header includes this one. It holds no struct bodies: those live
 * in the private headers of each module (algebra/expr_private.h, ...).
 */
#ifndef SYMSHAPE_TYPES_H
#define SYMSHAPE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define SY_BEGIN_DECLS extern "C" {
#define SY_END_DECLS }
#else
#define SY_BEGIN_DECLS
#define SY_END_DECLS
#endif

/* Symbol visibility: only SY_API functions are exported from the shared
 * library (the build uses -fvisibility=hidden). */
#if defined(_WIN32) && !defined(SY_STATIC)
#if defined(SY_BUILDING)
#define SY_API __declspec(dllexport)
#else
#define SY_API __declspec(dllimport)
#endif
#elif defined(__GNUC__)
#define SY_API __attribute__((visibility("default")))
#else
#define SY_API
#endif

/* Ownership annotations (isl's contract, machine-readable, expand to nothing):
 *  SY_GIVE  the function returns a new object the caller owns and must free.
 *  SY_TAKE  the function consumes the argument, even when it fails.
 *  SY_KEEP  the function only borrows the argument (the default for const).
 *  SY_NULL  the argument or result may be NULL.
 * Expressions (const sy_expr *) are owned by their context and never freed
 * individually; they carry no annotation. */
#define SY_GIVE
#define SY_TAKE
#define SY_KEEP
#define SY_NULL

SY_BEGIN_DECLS

/** A context: owns all expressions, the intern table and the last error. */
typedef struct sy_ctx sy_ctx;
/** An immutable, hash-consed expression node owned by its context. */
typedef struct sy_expr sy_expr;

/** Status codes. Append only; never renumber. */
typedef enum sy_status {
    SY_OK = 0,
    SY_ERROR = -1,        /**< generic failure (see the message) */
    SY_ENOMEM = -2,       /**< an allocation failed */
    SY_EINVAL = -3,       /**< invalid argument (type mismatch, arity, NULL) */
    SY_EOVERFLOW = -4,    /**< a result does not fit the requested width */
    SY_EDIVZERO = -5,     /**< division or modulo by zero */
    SY_EFORMAT = -6,      /**< malformed text or binary input */
    SY_EVERSION = -7,     /**< unknown format or options version */
    SY_EVERIFY = -8,      /**< a program failed verification */
    SY_EQUOTA = -9,       /**< a work or size budget was exceeded */
    SY_EUNSUPPORTED = -10 /**< valid input that this version cannot handle */
} sy_status;

/** Predicates that can fail return sy_bool. */
typedef enum sy_bool { SY_BOOL_ERROR = -1, SY_FALSE = 0, SY_TRUE = 1 } sy_bool;

/** Answers of the decision procedure. UNKNOWN is an answer, not an error. */
typedef enum sy_truth {
    SY_TRUTH_FALSE = 0,
    SY_TRUTH_TRUE = 1,
    SY_TRUTH_UNKNOWN = 2
} sy_truth;

/** Human-readable name of a status code ("SY_EDIVZERO", ...). Never NULL;
 *  the string is static. */
SY_API const char *sy_status_name(sy_status s);

SY_END_DECLS

#endif
