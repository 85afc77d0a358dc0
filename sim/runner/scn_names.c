/* scn_names.c — the names a scenario binds (a symbol table filled by the
 * validation pass), the fields that refer to them, and the composite values
 * built on names: key references, SGE lists, ranges of buffers. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

static const char *const kind_names[SYM_KINDS] = {"pd", "cq", "qp", "buffer", "mr", "page list", "peer client"};

const char *scn_sym_kind_name(sym_kind_t k)
{
    return k < SYM_KINDS ? kind_names[k] : "?";
}

/* ================================================================ the symbol table */

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int sym_find(const scn_t *s, const char *name, size_t len)
{
    if (!s->hashcap)
        return -1;
    for (size_t i = fnv1a(name, len) & (s->hashcap - 1);; i = (i + 1) & (s->hashcap - 1)) {
        int id = s->hash[i];
        if (id < 0)
            return -1;
        if (strlen(s->syms[id].name) == len && !memcmp(s->syms[id].name, name, len))
            return id;
    }
}

int scn_sym_lookup(const scn_t *s, const char *name, sym_kind_t kind)
{
    const int id = sym_find(s, name, strlen(name));
    return id >= 0 && s->syms[id].kind == kind ? id : -1;
}

static int sym_add(scn_t *s, const char *name, size_t len, sym_kind_t kind, unsigned line)
{
    if (s->nsyms == s->capsyms) {
        size_t nc = s->capsyms ? 2 * s->capsyms : 32;
        sym_t *n = realloc(s->syms, nc * sizeof *n);
        if (!n)
            return -1;
        s->syms = n;
        s->capsyms = nc;
    }
    if (2 * (s->nsyms + 1) > s->hashcap) {
        size_t nc = s->hashcap ? 2 * s->hashcap : 64;
        int *h = malloc(nc * sizeof *h);
        if (!h)
            return -1;
        for (size_t i = 0; i < nc; i++)
            h[i] = -1;
        for (size_t id = 0; id < s->nsyms; id++) {
            size_t i = fnv1a(s->syms[id].name, strlen(s->syms[id].name)) & (nc - 1);
            while (h[i] >= 0)
                i = (i + 1) & (nc - 1);
            h[i] = (int)id;
        }
        free(s->hash);
        s->hash = h;
        s->hashcap = nc;
    }
    sym_t *y = &s->syms[s->nsyms];
    memset(y, 0, sizeof *y);
    if (!(y->name = malloc(len + 1)))
        return -1;
    memcpy(y->name, name, len);
    y->name[len] = 0;
    y->kind = kind;
    y->line = line;
    size_t i = fnv1a(name, len) & (s->hashcap - 1);
    while (s->hash[i] >= 0)
        i = (i + 1) & (s->hashcap - 1);
    s->hash[i] = (int)s->nsyms;
    return (int)s->nsyms++;
}

/* ================================================================ name fields */

static int name_of(ctx_t *c, const json_value_t *v, const char *k, const char **name, size_t *len)
{
    if (v->type != JSON_STRING)
        return scn_bad_field(c, k, "expected a name (a string), got %s", json_type_phrase(v->type));
    size_t n = v->u.string.len;
    if (n < 1 || n > 64)
        return scn_bad_field(c, k, "a name has 1 to 64 characters");
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v->u.string.s[i] <= ' ' || (unsigned char)v->u.string.s[i] == 0x7f)
            return scn_bad_field(c, k, "a name has no spaces or control characters");
    *name = v->u.string.s;
    *len = n;
    return 0;
}

/* The kind of name field k holds, as the schema says. */
static sym_kind_t kind_of(ctx_t *c, const char *k)
{
    return (sym_kind_t)scn_schema_field(c, k)->sym;
}

/* Name field k of o (read as kind: K_BIND or K_NAME): NULL and *rc when
 * refused, NULL and *rc 0 when absent and optional. */
static const json_value_t *name_field(ctx_t *c, const json_value_t *o, const char *k, scn_kind_t kind,
                                      const char **name, size_t *len, int *rc)
{
    const json_value_t *v = scn_field(c, o, k, kind, rc);
    if (v && (*rc = name_of(c, v, k, name, len)))
        return NULL;
    return v;
}

int scn_bind(ctx_t *c, const json_value_t *o, const char *k, int *id)
{
    int rc;
    const char *name;
    size_t len;
    if (!name_field(c, o, k, K_BIND, &name, &len, &rc))
        return rc;
    int found = sym_find(c->s, name, len);
    if (c->run) { /* validated: bound by this very line */
        *id = found;
        return 0;
    }
    if (found >= 0)
        return scn_bad_field(c, k, "\"%s\" is already bound (a %s, line %u)", name,
                             scn_sym_kind_name(c->s->syms[found].kind), c->s->syms[found].line);
    if ((*id = sym_add(c->s, name, len, kind_of(c, k), c->line)) < 0)
        return scn_bad(c, "out of memory");
    return 0;
}

int scn_ref(ctx_t *c, const json_value_t *o, const char *k, int *id)
{
    int rc;
    const char *name;
    size_t len;
    if (!name_field(c, o, k, K_NAME, &name, &len, &rc))
        return rc;
    int found = sym_find(c->s, name, len);
    if (!c->run) {
        sym_kind_t kind = kind_of(c, k);
        if (found < 0)
            return scn_bad_field(c, k, "\"%s\" is not bound by any earlier line", name);
        const sym_t *y = &c->s->syms[found];
        if (y->kind != kind)
            return scn_bad_field(c, k, "\"%s\" is a %s (line %u), expected a %s", name, scn_sym_kind_name(y->kind),
                                 y->line, scn_sym_kind_name(kind));
    }
    *id = found;
    return 0;
}

int scn_pl_ref(ctx_t *c, const json_value_t *o, const char *k, int *id)
{
    int rc = scn_ref(c, o, k, id);
    if (!rc && !RUNNING && scn_sym(c, *id)->freed)
        rc = scn_bad_field(c, k, "page list \"%s\" was freed on line %u", scn_sym(c, *id)->name,
                           scn_sym(c, *id)->freed);
    return rc;
}

int scn_ref_errno(ctx_t *c, const json_value_t *o, const char *k, int *id, int *want)
{
    int rc = scn_ref(c, o, k, id);
    return rc ? rc : scn_errno(c, o, "expect_error", want);
}

int scn_buf_range(ctx_t *c, int id, const char *k, uint64_t off, uint64_t len)
{
    const sym_t *y = scn_sym(c, id);
    if (off > y->size || len > y->size - off)
        return scn_bad_field(c, k, "[%" PRIu64 ", +%" PRIu64 ") is outside buffer \"%s\" (%" PRIu64 " bytes)", off,
                             len, y->name, y->size);
    return 0;
}

/* ================================================================ keys */

int scn_mr_key(ctx_t *c, int id, const char *k, uint32_t *key)
{
    rt_obj_t *m = scn_obj(c, id);
    if (!m->live)
        return scn_bad_field(c, k, "mr \"%s\" holds no key (its creation on line %u did not succeed)",
                             scn_sym(c, id)->name, scn_sym(c, id)->line);
    *key = m->mr.lkey;
    return 0;
}

int scn_keyref_value(ctx_t *c, const json_value_t *v, const char *k, uint32_t *out)
{
    if (v->type != JSON_OBJECT) {
        if (v->type != JSON_INT && v->type != JSON_STRING && v->type != JSON_NUMBER)
            return scn_bad_field(c, k, "expected a key: {\"mr\":NAME}, {\"mr\":NAME,\"key\":BYTE} or an integer, "
                                       "got %s",
                                 json_type_phrase(v->type));
        uint64_t x = 0;
        int rc = scn_int_value(c, v, k, 0, UINT32_MAX, &x);
        *out = (uint32_t)x;
        return rc;
    }
    scn_frame_t fr;
    scn_enter(c, k, 0, 0, &fr);
    int id = -1, rc = scn_fields_known(c, v);
    uint64_t byte = 0;
    int has_byte = json_get(v, "key") != NULL;
    if (!rc)
        rc = scn_ref(c, v, "mr", &id);
    if (!rc)
        rc = scn_int(c, v, "key", 0, 0xff, &byte);
    scn_leave(c, &fr);
    if (rc || !RUNNING)
        return rc;
    uint32_t key;
    if ((rc = scn_mr_key(c, id, k, &key)))
        return rc;
    *out = has_byte ? (key & ~(uint32_t)HCA_KEY_BYTE_MASK) | (uint32_t)byte : key;
    return 0;
}

int scn_keyref(ctx_t *c, const json_value_t *o, const char *k, uint32_t *out)
{
    int rc;
    const json_value_t *v = scn_field(c, o, k, K_KEY, &rc);
    return v ? scn_keyref_value(c, v, k, out) : rc;
}

/* ================================================================ SGE lists */

/* One SGE: {"mr":M,"offset":O,"length":N[,"lkey":K]}, {"buf":B,"offset":O,"length":N,"lkey":K},
 * {"addr":A,"length":N,"lkey":K} (the forms of the schema's SGE). A missing length is the rest of
 * the MR or buffer. Read with the path and schema of the entry (scn_enter). */
static int sge_entry(ctx_t *c, const json_value_t *e, hca_sge_t *sge)
{
    unsigned form = json_get(e, "mr") ? 0 : json_get(e, "buf") ? 1 : 2;
    uint64_t off = 0, len = 0, addr = 0;
    uint32_t lkey = 0;
    int id = -1, has_len = json_get(e, "length") != NULL;
    int rc = scn_variant(c, e, form);
    if (!rc)
        rc = scn_fields_known(c, e);
    if (!rc)
        rc = form == 2 ? scn_int(c, e, "addr", 0, UINT64_MAX, &addr) : scn_ref(c, e, form ? "buf" : "mr", &id);
    if (!rc)
        rc = scn_require(c, e); /* the key of an SGE by buf or addr, the length of one by addr */
    if (!rc)
        rc = scn_int(c, e, "offset", 0, UINT64_MAX, &off);
    if (!rc)
        rc = scn_int(c, e, "length", 0, UINT32_MAX, &len);
    if (!rc)
        rc = scn_keyref(c, e, "lkey", &lkey);
    if (!rc && !RUNNING && form == 1 && !has_len && off > scn_sym(c, id)->size)
        rc = scn_bad_field(c, "offset", "%" PRIu64 " is past the end of buffer \"%s\" (%" PRIu64 " bytes)", off,
                           scn_sym(c, id)->name, scn_sym(c, id)->size);
    if (!rc && RUNNING) {
        if (form == 0) {
            rt_obj_t *m = scn_obj(c, id);
            uint32_t key;
            if ((rc = scn_mr_key(c, id, "mr", &key)) == 0) {
                addr = m->mr.iova + off;
                if (!json_get(e, "lkey"))
                    lkey = key;
                if (!has_len)
                    len = off <= m->mr.length ? m->mr.length - off : 0;
            }
        } else if (form == 1) {
            rt_obj_t *b = scn_obj(c, id);
            addr = b->addr + off;
            if (!has_len)
                len = b->size - off;
        }
        if (!rc && len > UINT32_MAX)
            rc = scn_bad_field(c, "length", "%" PRIu64 " bytes do not fit an SGE (32 bits)", len);
    }
    sge->addr = addr;
    sge->length = (uint32_t)len;
    sge->lkey = lkey;
    return rc;
}

int scn_sge_list(ctx_t *c, const json_value_t *o, const char *k, hca_sge_t *sge, unsigned cap, unsigned *n)
{
    int rc;
    const json_value_t *v = scn_field(c, o, k, K_SGES, &rc);
    *n = 0;
    if (!v)
        return rc;
    /* A KLM list ("list") is as long as an indirect MR's; an SGE list as the driver serves. */
    const size_t max = !strcmp(k, "list") ? HCA_MAX_INDIR_REG_LIST_LEN + 1u : SCN_MAX_SGES;
    if ((rc = scn_need_array(c, v, k, 0, max)))
        return rc;
    for (size_t i = 0; i < v->u.array.n && !rc; i++) {
        const json_value_t *e = v->u.array.items[i];
        char ik[48];
        snprintf(ik, sizeof ik, "%s[%zu]", k, i);
        if ((rc = scn_need_object(c, e, ik)))
            break;
        if (!!json_get(e, "mr") + !!json_get(e, "buf") + !!json_get(e, "addr") != 1)
            return scn_bad_field(c, ik, "an SGE has exactly one of \"mr\", \"buf\" or \"addr\"");
        scn_frame_t fr;
        hca_sge_t one;
        scn_enter(c, k, i, 1, &fr);
        rc = sge_entry(c, e, &one);
        scn_leave(c, &fr);
        if (!rc && i < cap)
            sge[i] = one;
        (*n)++;
    }
    return rc;
}
