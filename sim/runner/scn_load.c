/* scn_load.c — reading a scenario file: one JSON object per line, each naming
 * an op of the schema, then the validation pass (every op's handler with no
 * run: fields, types, names), before anything runs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

void scn_free(scn_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nops; i++)
        json_free(s->ops[i].doc);
    for (size_t i = 0; i < s->nsyms; i++)
        free(s->syms[i].name);
    free(s->ops);
    free(s->syms);
    free(s->hash);
    free(s->file);
    free(s);
}

size_t scn_op_count(const scn_t *s)
{
    return s ? s->nops : 0;
}

/* The op a line's "op" field names: its index in scn_ops, or SCN_ERROR with the reason in err. */
static int op_of(const json_value_t *v, const char *name, unsigned line, int *op, char *err, size_t errlen)
{
    const json_value_t *opv = json_get(v, "op");
    if (!opv)
        return scn_load_error(err, errlen, name, line, "missing field \"op\"");
    if (opv->type != JSON_STRING)
        return scn_load_error(err, errlen, name, line, "field \"op\": expected a string, got %s",
                              json_type_phrase(opv->type));
    *op = -1;
    for (size_t k = 0; k < scn_nops; k++)
        if (strlen(scn_ops[k].name) == opv->u.string.len && !strcmp(scn_ops[k].name, opv->u.string.s))
            *op = (int)k;
    if (*op >= 0)
        return SCN_PASS;
    const char *names[64];
    size_t n = 0;
    for (size_t k = 0; k < scn_nops && n < 64; k++)
        names[n++] = scn_ops[k].name;
    char hint[96];
    scn_suggest(opv->u.string.s, opv->u.string.len, names, n, hint, sizeof hint);
    return scn_load_error(err, errlen, name, line, "unknown op \"%.40s\"%s", opv->u.string.s, hint);
}

/* Parse the lines of text into s->ops. */
static int read_lines(scn_t *s, const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    size_t capops = 0;
    unsigned line = 0;
    for (size_t pos = 0; pos < len;) {
        line++;
        const char *b = text + pos;
        const char *nl = memchr(b, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - b) : len - pos;
        pos += n + (nl != NULL);
        if (n && b[n - 1] == '\r')
            n--;
        size_t i = 0;
        while (i < n && (b[i] == ' ' || b[i] == '\t'))
            i++;
        if (i == n || b[i] == '#')
            continue;
        json_doc_t *doc = NULL;
        json_error_t je;
        if (json_parse(b, n, 0, &doc, &je))
            return scn_load_error(err, errlen, name, line, "not JSON: column %zu: %s", je.column, je.msg);
        const json_value_t *v = json_root(doc);
        int op = -1, rc;
        if (v->type != JSON_OBJECT)
            rc = scn_load_error(err, errlen, name, line, "expected one JSON object per line, got %s",
                                json_type_phrase(v->type));
        else
            rc = op_of(v, name, line, &op, err, errlen);
        if (!rc && s->nops == capops) {
            capops = capops ? 2 * capops : 64;
            op_line_t *no = realloc(s->ops, capops * sizeof *no);
            if (!no)
                rc = scn_load_error(err, errlen, name, line, "out of memory");
            else
                s->ops = no;
        }
        if (rc) {
            json_free(doc);
            return rc;
        }
        s->ops[s->nops++] = (op_line_t){line, op, doc, v};
    }
    return SCN_PASS;
}

/* The validation pass: every op's fields and names, in file order. */
static int validate(scn_t *s, const char *name, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->nops; i++) {
        const op_line_t *l = &s->ops[i];
        ctx_t c;
        memset(&c, 0, sizeof c);
        c.s = s;
        scn_ctx_op(&c, l);
        int rc = SCN_PASS;
        if ((scn_ops[l->op].flags & SCN_OP_CONFIG) && i != 0)
            rc = scn_bad(&c, "must be the first op of the file (line %u comes first)", s->ops[0].line);
        if (!rc)
            rc = scn_fields_known(&c, l->v);
        if (!rc)
            rc = scn_ops[l->op].fn(&c, l->v);
        if (rc)
            return scn_load_error(err, errlen, name, l->line, "%s", c.msg);
    }
    return SCN_PASS;
}

int scn_load_text(const char *name, const char *text, size_t len, scn_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (err && errlen)
        err[0] = 0;
    scn_t *s = calloc(1, sizeof *s);
    if (!s || !(s->file = strdup(name))) {
        free(s);
        return scn_load_error(err, errlen, name, 0, "out of memory");
    }
    if (read_lines(s, name, text, len, err, errlen) || validate(s, name, err, errlen)) {
        scn_free(s);
        return SCN_ERROR;
    }
    *out = s;
    return SCN_PASS;
}

int scn_load(const char *path, scn_t **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return scn_load_error(err, errlen, path, 0, "cannot open: %s", strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) { /* full: grow (a file under 64 KiB is read into one buffer, never copied) */
            cap = cap ? 2 * cap : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return scn_load_error(err, errlen, path, 0, "out of memory");
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return scn_load_error(err, errlen, path, 0, "read error");
    }
    int rc = scn_load_text(path, buf, len, out, err, errlen);
    free(buf);
    return rc;
}
