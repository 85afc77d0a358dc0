/* scn_txn.c — transaction names in the waves (docs/waves.md "Transaction
 * names"): what a traced run knows and the RTL does not, written into the
 * same FST as variables under the scope `txn` (trace_vars.h), beside
 * hca_core's signals:
 *
 *   txn.scn     line, op        the scenario op running (its line, its name)
 *   txn.qp.NAME qpn, wr_id, opcode, line, outstanding
 *                               the oldest send WR of the scenario's QP NAME
 *                               not completed yet (posted on line), and how
 *                               many are; cqe_wr_id, cqe_status, cqe: its last
 *                               completion (cqe is 1 the cycle after it landed)
 *               rq_wr_id, rq_line, rq_outstanding
 *                               its oldest receive WR not completed yet
 *               rq_cqe_wr_id, rq_cqe_status, rq_cqe, rq_inv_rkey
 *                               its last receive completion and the R_Key a
 *                               SEND_WITH_INV invalidated with it (0: none)
 *   txn.mm      inval_key, inval_pending
 *                               the key whose invalidation was requested last
 *                               and is not complete (0: none), how many are;
 *               key_invalid, invalidated_by, key_invalid_ev,
 *               key_valid, key_valid_ev
 *                               the last key made invalid (by which event or
 *                               command) or valid; *_ev 1 the cycle after
 *   txn.check   breach, breaches, breach_key, breach_qpn, engine_bug
 *                               the protection checker's last breach (breach
 *                               1 the cycle after it was seen), their count,
 *                               an engine contract breach
 *   txn.fw      func, pc        the firmware function running ("(asleep)" in
 *                               WFI), from the image's symbols
 *
 * Enum-typed ones carry their names in the file (FST enum tables: GTKWave
 * shows the name): opcodes and statuses from the ABI's name tables, the op
 * names from the scenario schema, the functions from the firmware ELF, so
 * none of them can go stale. The device's events reach the harness at the end
 * of their cycle, so a variable fed by one changes at the start of the next
 * cycle; the op, line and firmware function are the cycle's own.
 */
#include <stdlib.h>
#include <string.h>

#include "elf_syms.h"
#include "scn_int.h"

/* Variables of one QP, in this order from its first. */
enum {
    Q_QPN, Q_WR_ID, Q_OPCODE, Q_LINE, Q_OUTSTANDING, Q_CQE_WR_ID, Q_CQE_STATUS, Q_CQE,
    Q_RQ_WR_ID, Q_RQ_LINE, Q_RQ_OUTSTANDING, Q_RQ_CQE_WR_ID, Q_RQ_CQE_STATUS, Q_RQ_CQE, Q_RQ_INV_RKEY, Q_N
};
/* The global ones, before the QPs'. */
enum {
    V_LINE, V_OP, V_INVAL_KEY, V_INVAL_PENDING, V_KEY_INVALID, V_INVALIDATED_BY, V_KEY_INVALID_EV, V_KEY_VALID,
    V_KEY_VALID_EV, V_BREACH, V_BREACHES, V_BREACH_KEY, V_BREACH_QPN, V_ENGINE_BUG, V_FUNC, V_PC, V_N
};
/* The enum types. */
enum { E_OP, E_WR_OPCODE, E_WC_STATUS, E_INVAL_BY, E_FUNC, E_N };

/** An opcode value for "no WR in flight" and one for a raw WQE. */
#define OPC_NONE 0xffu
#define OPC_RAW 0xfeu
/** A cqe_status value for "no completion yet". */
#define STATUS_NONE 0xffu
/** invalidated_by: an event kind (evt_kind) or, above this, a mailbox command (cmd_op). */
#define BY_CMD 0x100u
/** Invalidations followed at once (more are counted). */
#define MAX_INVAL 16u

typedef struct txn_wr {
    uint64_t wr_id;
    uint32_t index;
    unsigned line;
    uint8_t opcode;
} txn_wr_t;

/* One work queue's WRs posted, not completed: [head, n). */
typedef struct txn_wq {
    txn_wr_t *wr;
    size_t head, n, cap;
    uint64_t cqe_cycle; /* its last completion's */
} txn_wq_t;

typedef struct txn_qp {
    int sym;
    txn_wq_t sq, rq;
} txn_qp_t;

typedef struct txn_names {
    const char **names;
    uint64_t *values;
    size_t n;
} txn_names_t;

struct scn_txn {
    hca_dev_t *dev;
    hca_host_t host; /* reads the CQEs */
    trace_vars_t tv;
    trace_var_t *vars;
    uint64_t *val;
    char **strs; /* what the names point into */
    size_t nstrs;
    trace_enum_t en[E_N];
    txn_names_t nm[E_N];
    txn_qp_t *qp;
    size_t nqp;
    elf_func_t *fn;
    size_t nfn;
    uint32_t inval[MAX_INVAL];
    unsigned ninval;
    uint64_t key_invalid_cycle, key_valid_cycle, bug_cycle;
    uint64_t breaches_seen;
    int oom;
};

static const char *keep(scn_txn_t *t, char *s)
{
    char **g = s ? realloc(t->strs, (t->nstrs + 1) * sizeof *g) : NULL;
    if (!g) {
        free(s);
        t->oom = 1;
        return "?";
    }
    t->strs = g;
    t->strs[t->nstrs++] = s;
    return s;
}

static void name_add(scn_txn_t *t, int e, const char *name, uint64_t value)
{
    txn_names_t *m = &t->nm[e];
    const char **n = realloc(m->names, (m->n + 1) * sizeof *n);
    if (n)
        m->names = n;
    uint64_t *v = n ? realloc(m->values, (m->n + 1) * sizeof *v) : NULL;
    if (!v) {
        t->oom = 1;
        return;
    }
    m->values = v;
    m->names[m->n] = name;
    m->values[m->n++] = value;
}

/* An ABI enum's names: value v named by fn(v), for v in [0, max]. */
static void name_abi(scn_txn_t *t, int e, const char *(*fn)(unsigned), unsigned max, uint64_t offset)
{
    for (unsigned v = 0; v <= max; v++)
        if (fn(v))
            name_add(t, e, fn(v), offset + v);
}

static size_t var_add(scn_txn_t *t, size_t *n, const char *scope, const char *name, unsigned bits, int en)
{
    t->vars[*n] = (trace_var_t){scope, name, bits, en};
    return (*n)++;
}

static void on_event(void *ctx, const evlog_event_t *e);

scn_txn_t *scn_txn_new(const scn_t *s, hca_dev_t *dev, const hca_host_t *host)
{
    scn_txn_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->dev = dev;
    t->host = *host;
    t->key_invalid_cycle = t->key_valid_cycle = t->bug_cycle = UINT64_MAX;
    for (size_t i = 0; i < s->nsyms; i++)
        t->nqp += s->syms[i].kind == SYM_QP;
    const size_t nv = V_N + Q_N * t->nqp;
    t->vars = calloc(nv, sizeof *t->vars);
    t->val = calloc(nv, sizeof *t->val);
    t->qp = calloc(t->nqp ? t->nqp : 1, sizeof *t->qp);
    if (!t->vars || !t->val || !t->qp) {
        scn_txn_free(t, NULL);
        return NULL;
    }
    /* the names of the enum-typed values */
    for (size_t k = 0; k < scn_nops; k++)
        name_add(t, E_OP, scn_ops[k].name, k);
    name_abi(t, E_WR_OPCODE, hca_wr_opcode_name, HCA_WR_OPCODE_MAX, 0);
    name_add(t, E_WR_OPCODE, "RAW", OPC_RAW);
    name_add(t, E_WR_OPCODE, "(none)", OPC_NONE);
    name_abi(t, E_WC_STATUS, hca_wc_status_name, HCA_WC_STATUS_MAX, 0);
    name_add(t, E_WC_STATUS, "(none)", STATUS_NONE);
    name_abi(t, E_INVAL_BY, hca_evt_kind_name, HCA_EVT_KIND_MAX, 0);
    name_abi(t, E_INVAL_BY, hca_cmd_op_name, HCA_CMD_OP_MAX, BY_CMD);
    name_add(t, E_FUNC, "(asleep)", 0);
    if (!elf_read_functions(hca_dev_firmware(dev), &t->fn, &t->nfn))
        for (size_t i = 0; i < t->nfn; i++)
            name_add(t, E_FUNC, t->fn[i].name, i + 1);
    static const char *const en_name[E_N] = {"scn_op", "wr_opcode", "wc_status", "inval_by", "fw_func"};
    for (int e = 0; e < E_N; e++)
        t->en[e] = (trace_enum_t){en_name[e], t->nm[e].n, t->nm[e].names, t->nm[e].values};

    size_t n = 0;
    var_add(t, &n, "txn.scn", "line", 32, -1);
    var_add(t, &n, "txn.scn", "op", 8, E_OP);
    var_add(t, &n, "txn.mm", "inval_key", 32, -1);
    var_add(t, &n, "txn.mm", "inval_pending", 8, -1);
    var_add(t, &n, "txn.mm", "key_invalid", 32, -1);
    var_add(t, &n, "txn.mm", "invalidated_by", 16, E_INVAL_BY);
    var_add(t, &n, "txn.mm", "key_invalid_ev", 1, -1);
    var_add(t, &n, "txn.mm", "key_valid", 32, -1);
    var_add(t, &n, "txn.mm", "key_valid_ev", 1, -1);
    var_add(t, &n, "txn.check", "breach", 1, -1);
    var_add(t, &n, "txn.check", "breaches", 16, -1);
    var_add(t, &n, "txn.check", "breach_key", 32, -1);
    var_add(t, &n, "txn.check", "breach_qpn", 24, -1);
    var_add(t, &n, "txn.check", "engine_bug", 1, -1);
    var_add(t, &n, "txn.fw", "func", 16, E_FUNC);
    var_add(t, &n, "txn.fw", "pc", 32, -1);
    for (size_t i = 0, q = 0; i < s->nsyms; i++) {
        if (s->syms[i].kind != SYM_QP)
            continue;
        char *scope = malloc(strlen(s->syms[i].name) + 8);
        if (scope) {
            sprintf(scope, "txn.qp.%s", s->syms[i].name);
            for (char *p = scope + 7; *p; p++) /* one scope level, whatever the name */
                *p = *p == '.' || *p == ' ' || *p == '\t' ? '_' : *p;
        }
        const char *sc = keep(t, scope);
        t->qp[q].sym = (int)i;
        t->qp[q].sq.cqe_cycle = t->qp[q].rq.cqe_cycle = UINT64_MAX;
        var_add(t, &n, sc, "qpn", 24, -1);
        var_add(t, &n, sc, "wr_id", 64, -1);
        var_add(t, &n, sc, "opcode", 8, E_WR_OPCODE);
        var_add(t, &n, sc, "line", 32, -1);
        var_add(t, &n, sc, "outstanding", 16, -1);
        var_add(t, &n, sc, "cqe_wr_id", 64, -1);
        var_add(t, &n, sc, "cqe_status", 8, E_WC_STATUS);
        var_add(t, &n, sc, "cqe", 1, -1);
        var_add(t, &n, sc, "rq_wr_id", 64, -1);
        var_add(t, &n, sc, "rq_line", 32, -1);
        var_add(t, &n, sc, "rq_outstanding", 16, -1);
        var_add(t, &n, sc, "rq_cqe_wr_id", 64, -1);
        var_add(t, &n, sc, "rq_cqe_status", 8, E_WC_STATUS);
        var_add(t, &n, sc, "rq_cqe", 1, -1);
        var_add(t, &n, sc, "rq_inv_rkey", 32, -1);
        t->val[V_N + Q_N * q + Q_OPCODE] = OPC_NONE;
        t->val[V_N + Q_N * q + Q_CQE_STATUS] = STATUS_NONE;
        t->val[V_N + Q_N * q + Q_RQ_CQE_STATUS] = STATUS_NONE;
        q++;
    }
    t->tv = (trace_vars_t){t->en, E_N, t->vars, n, t->val, NULL, t};
    if (t->oom || evlog_subscribe(hca_dev_log(dev), on_event, t)) {
        scn_txn_free(t, NULL);
        return NULL;
    }
    return t;
}

void scn_txn_free(scn_txn_t *t, hca_dev_t *dev)
{
    if (!t)
        return;
    if (dev)
        evlog_unsubscribe(hca_dev_log(dev), on_event, t);
    for (size_t i = 0; i < t->nstrs; i++)
        free(t->strs[i]);
    free(t->strs);
    for (int e = 0; e < E_N; e++) {
        free(t->nm[e].names);
        free(t->nm[e].values);
    }
    for (size_t q = 0; t->qp && q < t->nqp; q++) {
        free(t->qp[q].sq.wr);
        free(t->qp[q].rq.wr);
    }
    free(t->qp);
    free(t->fn);
    free(t->vars);
    free(t->val);
    free(t);
}

/* The QP's head WRs into its variables. */
static void qp_show(scn_txn_t *t, size_t q)
{
    const txn_qp_t *p = &t->qp[q];
    uint64_t *v = &t->val[V_N + Q_N * q];
    const txn_wr_t *w = p->sq.head < p->sq.n ? &p->sq.wr[p->sq.head] : NULL;
    v[Q_WR_ID] = w ? w->wr_id : 0;
    v[Q_OPCODE] = w ? w->opcode : OPC_NONE;
    v[Q_LINE] = w ? w->line : 0;
    v[Q_OUTSTANDING] = p->sq.n - p->sq.head;
    const txn_wr_t *r = p->rq.head < p->rq.n ? &p->rq.wr[p->rq.head] : NULL;
    v[Q_RQ_WR_ID] = r ? r->wr_id : 0;
    v[Q_RQ_LINE] = r ? r->line : 0;
    v[Q_RQ_OUTSTANDING] = p->rq.n - p->rq.head;
}

static uint64_t strobe(uint64_t ev, uint64_t now)
{
    return ev != UINT64_MAX && ev + 1 == now;
}

static void sample(void *ctx, uint64_t now)
{
    scn_txn_t *t = ctx;
    uint64_t *v = t->val;
    int running = 0;
    const uint32_t pc = hca_dev_fw_pc(t->dev, &running);
    const elf_func_t *f = running ? elf_func_at(t->fn, t->nfn, pc) : NULL;
    v[V_PC] = pc;
    v[V_FUNC] = f ? (uint64_t)(f - t->fn) + 1 : 0;
    const protcheck_t *pc_ = hca_dev_protcheck(t->dev);
    const uint64_t nb = protcheck_count(pc_);
    protcheck_violation_t b;
    if (nb > t->breaches_seen && !protcheck_get(pc_, nb - 1, &b)) {
        v[V_BREACH_KEY] = b.key;
        v[V_BREACH_QPN] = b.qpn;
    }
    v[V_BREACH] = nb > t->breaches_seen; /* the checker saw it in the cycle before */
    t->breaches_seen = nb;
    v[V_BREACHES] = nb;
    v[V_ENGINE_BUG] = strobe(t->bug_cycle, now);
    v[V_KEY_INVALID_EV] = strobe(t->key_invalid_cycle, now);
    v[V_KEY_VALID_EV] = strobe(t->key_valid_cycle, now);
    for (size_t q = 0; q < t->nqp; q++) {
        v[V_N + Q_N * q + Q_CQE] = strobe(t->qp[q].sq.cqe_cycle, now);
        v[V_N + Q_N * q + Q_RQ_CQE] = strobe(t->qp[q].rq.cqe_cycle, now);
    }
}

static void inval_show(scn_txn_t *t)
{
    t->val[V_INVAL_KEY] = t->ninval ? t->inval[t->ninval - 1] : 0;
    t->val[V_INVAL_PENDING] = t->ninval;
}

static void inval_drop(scn_txn_t *t, uint32_t key)
{
    for (unsigned i = t->ninval; i-- > 0;)
        if (t->inval[i] == key) {
            memmove(&t->inval[i], &t->inval[i + 1], (t->ninval - i - 1) * sizeof *t->inval);
            t->ninval--;
            break;
        }
    inval_show(t);
}

static uint64_t inval_by(const char *what)
{
    for (unsigned k = 0; what && k <= HCA_EVT_KIND_MAX; k++)
        if (hca_evt_kind_name(k) && !strcmp(what, hca_evt_kind_name(k)))
            return k;
    for (unsigned k = 0; what && k <= HCA_CMD_OP_MAX; k++)
        if (hca_cmd_op_name(k) && !strcmp(what, hca_cmd_op_name(k)))
            return BY_CMD + k;
    return 0xffffu;
}

/* A completion landed: the QP's WRs up to the one it completes are done. */
static void on_cqe(scn_txn_t *t, uint64_t addr, uint64_t cycle)
{
    hca_cqe_t cqe;
    if (t->host.ops->mem_read(t->host.ctx, addr, &cqe, sizeof cqe))
        return;
    for (size_t q = 0; q < t->nqp; q++) {
        uint64_t *v = &t->val[V_N + Q_N * q];
        if (v[Q_QPN] != cqe.qpn || !v[Q_QPN])
            continue;
        const int recv = hca_cqe_get_opcode(&cqe) == HCA_WC_OPCODE_RECV;
        txn_wq_t *w = recv ? &t->qp[q].rq : &t->qp[q].sq;
        for (size_t i = w->head; i < w->n; i++)
            if ((w->wr[i].index & 0xffff) == (cqe.wqe_counter & 0xffff)) {
                w->head = i + 1; /* and the unsignaled ones before it */
                break;
            }
        if (w->head == w->n)
            w->head = w->n = 0;
        v[recv ? Q_RQ_CQE_WR_ID : Q_CQE_WR_ID] = cqe.wr_id;
        v[recv ? Q_RQ_CQE_STATUS : Q_CQE_STATUS] = hca_cqe_get_status(&cqe);
        if (recv)
            v[Q_RQ_INV_RKEY] = hca_cqe_get_wc_flags(&cqe) & HCA_WC_FLAGS_WITH_INVALIDATE ? cqe.invalidate_rkey : 0;
        w->cqe_cycle = cycle;
        qp_show(t, q);
        return;
    }
}

static void on_event(void *ctx, const evlog_event_t *e)
{
    scn_txn_t *t = ctx;
    switch (e->kind) {
    case EVLOG_KEY_INVALIDATING:
        if (!e->on)
            inval_drop(t, e->key);
        else if (t->ninval < MAX_INVAL) {
            t->inval[t->ninval++] = e->key;
            inval_show(t);
        }
        break;
    case EVLOG_KEY_INVALID:
        inval_drop(t, e->key);
        t->val[V_KEY_INVALID] = e->key;
        t->val[V_INVALIDATED_BY] = inval_by(e->what);
        t->key_invalid_cycle = e->cycle;
        break;
    case EVLOG_KEY_VALID:
        t->val[V_KEY_VALID] = e->key;
        t->key_valid_cycle = e->cycle;
        break;
    case EVLOG_CQE: on_cqe(t, e->addr, e->cycle); break;
    case EVLOG_ENGINE_BUG: t->bug_cycle = e->cycle; break;
    default: break;
    }
}

const trace_vars_t *scn_txn_vars(scn_txn_t *t)
{
    if (t)
        t->tv.sample = sample;
    return t ? &t->tv : NULL;
}

void scn_txn_op(scn_txn_t *t, unsigned line, int op)
{
    if (!t)
        return;
    t->val[V_LINE] = line;
    t->val[V_OP] = (uint64_t)op;
}

void scn_txn_posted(scn_txn_t *t, int qp_sym, int recv, uint32_t qpn, uint64_t wr_id, const char *opcode,
                    uint32_t index, unsigned line)
{
    for (size_t q = 0; t && q < t->nqp; q++) {
        if (t->qp[q].sym != qp_sym)
            continue;
        txn_wq_t *p = recv ? &t->qp[q].rq : &t->qp[q].sq;
        if (p->n == p->cap) {
            size_t nc = p->cap ? 2 * p->cap : 16;
            txn_wr_t *g = realloc(p->wr, nc * sizeof *g);
            if (!g)
                return;
            p->wr = g;
            p->cap = nc;
        }
        uint8_t opc = OPC_RAW;
        for (unsigned k = 0; opcode && k <= HCA_WR_OPCODE_MAX; k++)
            if (hca_wr_opcode_name(k) && !strcmp(opcode, hca_wr_opcode_name(k)))
                opc = (uint8_t)k;
        p->wr[p->n++] = (txn_wr_t){wr_id, index, line, opc};
        t->val[V_N + Q_N * q + Q_QPN] = qpn;
        qp_show(t, q);
        return;
    }
}
