/* trace_vars.h — variables the harness writes into an engine's wave file
 * beside the RTL's (docs/waves.md "Transaction names"): what the simulator
 * knows and the RTL does not — the WR in flight per QP, the key being
 * invalidated, the checker's events, the firmware function running.
 *
 * The caller owns every array and keeps them alive while the file is open;
 * the engine declares the variables when it opens the file (under their
 * scopes, enum-typed ones with the enum's names, which GTKWave shows as the
 * value) and writes val[] at each dump, calling sample() first so the caller
 * can bring val[] up to the cycle being dumped.
 */
#ifndef TRACE_VARS_H
#define TRACE_VARS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A named set of values: GTKWave shows the name instead of the number. */
typedef struct trace_enum {
    const char *name;          /**< the type's name in the file */
    size_t n;                  /**< how many values */
    const char *const *names;  /**< n names */
    const uint64_t *values;    /**< n values */
} trace_enum_t;

typedef struct trace_var {
    const char *scope; /**< dot-separated scope, e.g. "txn.qp.a" */
    const char *name;  /**< the variable's name in it */
    unsigned bits;     /**< 1..64 */
    int enum_id;       /**< index into trace_vars_t.enums, -1: a plain number */
} trace_var_t;

typedef struct trace_vars {
    const trace_enum_t *enums;
    size_t nenums;
    const trace_var_t *vars;
    size_t nvars;
    const uint64_t *val; /**< nvars values, read at every dump */
    /** Optional: called before the dump of cycle now (once per dumped cycle). */
    void (*sample)(void *ctx, uint64_t now);
    void *ctx;
} trace_vars_t;

#ifdef __cplusplus
}
#endif
#endif /* TRACE_VARS_H */
