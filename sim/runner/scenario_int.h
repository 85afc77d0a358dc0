/* scenario_int.h — internals shared by sim/scenario.c (loading, field
 * readers, names, the run loop, results) and sim/scenario_ops.c (one handler
 * per op).
 *
 * Every op has one handler that serves both passes: in the validation pass
 * (c->run == NULL) it reads and checks every field and binds the names the op
 * creates, then returns before doing anything; in the run pass it reads the
 * same fields through the same readers (they cannot fail any more) and acts.
 * So what is validated is exactly what runs.
 */
#ifndef SCENARIO_INT_H
#define SCENARIO_INT_H

#include <stdint.h>

#include "hca_dev.h"
#include "hcadrv.h"
#include "json.h"
#include "scenario.h"

/* Kinds of names a scenario binds. */
typedef enum sym_kind { SYM_PD = 0, SYM_CQ, SYM_QP, SYM_BUF, SYM_MR, SYM_PL, SYM_CLIENT, SYM_KINDS } sym_kind_t;

/** A bound name: what validation knows about it. */
typedef struct sym {
    char *name;
    sym_kind_t kind;
    unsigned line;  /**< where it was bound */
    uint64_t size;  /**< buf: bytes; pl: entries */
    int peer;       /**< buf: in a peer's memory */
    unsigned freed; /**< pl: line of its free_fast_reg_page_list (validation), 0 */
} sym_t;

/** A name's object during a run. */
typedef struct rt_obj {
    int live; /**< the op that binds it ran and succeeded */
    uint32_t pd;
    hcadrv_cq_t cq;
    uint64_t *seen_cycle; /**< cq: arrival cycle of the CQE at each ring slot */
    uint32_t seen;        /**< cq: CQEs seen past the driver's consumer index */
    hcadrv_qp_t qp;
    uint64_t addr, size; /**< buf, pl (size: the entries asked for) */
    hcadrv_mr_t mr;
    hcadrv_page_list_t pl; /**< pl: the driver's page list */
} rt_obj_t;

/** One posted work request, for latencies and the JSON result. */
typedef struct wr_rec {
    unsigned line;
    int qp; /**< symbol id */
    int recv;
    uint64_t wr_id;
    const char *opcode; /**< wr_opcode name, "RECV" or "RAW" */
    uint32_t index;     /**< SQ/RQ index of its WQE */
    uint64_t post_cycle, completion_cycle;
    int done;
    unsigned status;
} wr_rec_t;

typedef struct run run_t; /* the run state (scenario.c) */

typedef struct op_line {
    unsigned line;
    int op; /**< index into scn_ops */
    json_doc_t *doc;
    const json_value_t *v;
} op_line_t;

struct scn {
    char *file;
    op_line_t *ops;
    size_t nops;
    sym_t *syms;
    size_t nsyms, capsyms;
    int *hash; /**< open addressing over syms: -1 empty */
    size_t hashcap;
};

/** Context of one op in either pass. */
typedef struct ctx {
    scn_t *s;
    unsigned line;
    const char *op;
    run_t *run; /**< NULL in the validation pass */
    char msg[1024]; /**< the reason, without "FILE:LINE: " */
    char note[512]; /**< verbose/progress detail of a successful op */
    char path[96];  /**< prefix of nested field names, e.g. "sge[1]." */
} ctx_t;

typedef struct op_spec {
    const char *name;
    const char *fields; /**< space-separated fields the op accepts besides "op" */
    int (*fn)(ctx_t *c, const json_value_t *o);
} op_spec_t;

extern const op_spec_t scn_ops[];
extern const size_t scn_nops;

/* ---- diagnostics: each returns the code to propagate */
int scn_bad(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));                      /* 2 */
int scn_bad_field(ctx_t *c, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4))); /* 2 */
int scn_mismatch(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));                  /* 1 */
int scn_unavailable(ctx_t *c, const char *what, const char *feature);                                   /* 2 */
void scn_note(ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- field readers: 0, or SCN_ERROR with the field named. A missing
 * optional field leaves *out untouched. */
int scn_fields_known(ctx_t *c, const json_value_t *o, const char *allowed);
int scn_int(ctx_t *c, const json_value_t *o, const char *k, int req, uint64_t min, uint64_t max, uint64_t *out);
int scn_int_value(ctx_t *c, const json_value_t *v, const char *k, uint64_t min, uint64_t max, uint64_t *out);
int scn_bool(ctx_t *c, const json_value_t *o, const char *k, int req, int *out);
int scn_str(ctx_t *c, const json_value_t *o, const char *k, int req, const char **out);
/** A name among names[] (NULL-terminated). */
int scn_choice(ctx_t *c, const json_value_t *o, const char *k, int req, const char *const *names, unsigned *out);
/** A name of an ABI enum (its generated name function, values 0..max). */
int scn_enum_value(ctx_t *c, const json_value_t *v, const char *k, const char *(*name)(unsigned), unsigned max,
                   unsigned *out);
int scn_enum(ctx_t *c, const json_value_t *o, const char *k, int req, const char *(*name)(unsigned), unsigned max,
             unsigned *out);
/** A list of ABI flag names (the generated bit-name function, bits 0..width-1) -> mask. */
int scn_flags(ctx_t *c, const json_value_t *o, const char *k, int req, const char *(*bit_name)(unsigned),
              unsigned width, uint32_t *out);
/** An errno name ("OK", "EINVAL", ...) -> 0 or -errno. */
int scn_errno(ctx_t *c, const json_value_t *o, const char *k, int req, int *out);
const char *scn_errno_name(int neg_errno);
/** Bind a new name of kind k (validation), or find it (run). */
int scn_bind(ctx_t *c, const json_value_t *o, const char *k, sym_kind_t kind, int *id);
/** A name bound earlier, of kind k. */
int scn_ref(ctx_t *c, const json_value_t *o, const char *k, int req, sym_kind_t kind, int *id);
int scn_ref_value(ctx_t *c, const json_value_t *v, const char *k, sym_kind_t kind, int *id);
int scn_hex(ctx_t *c, const json_value_t *o, const char *k, int req, uint8_t **bytes, size_t *len);
const char *scn_sym_kind_name(sym_kind_t k);

/* ---- run-time services (scenario.c) */
rt_obj_t *scn_obj(ctx_t *c, int id);
sym_t *scn_sym(ctx_t *c, int id);
hca_dev_t *scn_dev(ctx_t *c);
hostmem_t *scn_mem(ctx_t *c);
hcadrv_t *scn_drv(ctx_t *c);
uint64_t scn_seed(ctx_t *c);
int scn_engine_is_model(ctx_t *c);
/** Device attributes (queried once, on first use). 0 or SCN_ERROR. */
int scn_attr(ctx_t *c, const hcadrv_device_attr_t **attr);
/** Advance device time by n cycles, watching every CQ for new CQEs. */
void scn_advance(ctx_t *c, uint64_t n);
/** Look for newly arrived CQEs on every CQ (records their arrival cycle). */
void scn_watch(ctx_t *c);
wr_rec_t *scn_add_wr(ctx_t *c, int qp, int recv, uint64_t wr_id, const char *opcode, uint32_t index);
/** The posted WR a CQE completes (by QP, queue and WQE index), or NULL. */
wr_rec_t *scn_find_wr(ctx_t *c, const hcadrv_wc_t *wc);
/** Symbol id of the QP with this number, -1 when none. */
int scn_qp_by_qpn(ctx_t *c, uint32_t qpn);
FILE *scn_out(ctx_t *c);
int scn_verbose(ctx_t *c);
/** Record a device-level option of the `device` op for the device's creation.
 *  0, or SCN_ERROR when the option is not available. */
int scn_device_option(ctx_t *c, const char *key, uint64_t value);

#endif /* SCENARIO_INT_H */
