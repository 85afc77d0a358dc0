/* trace_window.c — open and close an engine's wave file at cycle boundaries. */
#include "trace_window.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void trace_window_init(trace_window_t *w, void *eng, int (*open)(void *, const char *), void (*close)(void *))
{
    memset(w, 0, sizeof *w);
    w->eng = eng;
    w->open = open;
    w->close = close;
}

void trace_window_set_pause(trace_window_t *w, void (*pause)(void *, int))
{
    w->pause = pause;
}

void trace_window_close(trace_window_t *w)
{
    if (w->on || w->spans) /* with spans the file stays open between windows */
        w->close(w->eng);
    w->on = 0;
    w->pending = 0;
    free(w->path);
    w->path = NULL;
    free(w->spans);
    w->spans = NULL;
    w->nspans = w->cur = 0;
}

/* Several windows: pause or resume at the boundaries, close after the last. */
static void spans_edge(trace_window_t *w, uint64_t now)
{
    while (w->cur < w->nspans) {
        const uint64_t from = w->spans[2 * w->cur], to = w->spans[2 * w->cur + 1];
        if (now >= to) {
            w->cur++;
            continue;
        }
        const int on = now >= from;
        if (on != w->on)
            w->pause(w->eng, !on);
        w->on = on;
        return;
    }
    trace_window_close(w);
}

void trace_window_edge(trace_window_t *w, uint64_t now)
{
    if (w->spans) {
        spans_edge(w, now);
    } else if (w->on && now >= w->to) {
        trace_window_close(w);
    } else if (!w->on && now >= w->from) {
        if (w->open(w->eng, w->path) == 0) {
            w->on = 1;
            w->pending = w->to != UINT64_MAX;
        } else {
            w->pending = 0;
        }
    }
}

int trace_window_open_spans(trace_window_t *w, const char *path, const uint64_t *spans, size_t n, uint64_t now)
{
    if (!path || !spans || n == 0)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (spans[2 * i] >= spans[2 * i + 1] || (i && spans[2 * i] < spans[2 * i - 1]))
            return -EINVAL;
    if (n == 1)
        return trace_window_open(w, path, spans[0], spans[1], now);
    if (!w->pause)
        return -ENOTSUP;
    trace_window_close(w);
    uint64_t *copy = malloc(2 * n * sizeof *copy);
    char *p = strdup(path);
    if (!copy || !p) {
        free(copy);
        free(p);
        return -ENOMEM;
    }
    int rc = w->open(w->eng, path);
    if (rc) {
        free(copy);
        free(p);
        return rc;
    }
    memcpy(copy, spans, 2 * n * sizeof *copy);
    w->spans = copy;
    w->nspans = n;
    w->cur = 0;
    w->path = p;
    w->on = 1; /* the engine dumps from its open on */
    w->pending = 1;
    spans_edge(w, now);
    return 0;
}

int trace_window_open(trace_window_t *w, const char *path, uint64_t from, uint64_t to, uint64_t now)
{
    if (!path || to <= from)
        return -EINVAL;
    trace_window_close(w);
    int rc = w->open(w->eng, path);
    if (rc)
        return rc;
    if (from > now)
        w->close(w->eng);
    else
        w->on = 1;
    w->path = strdup(path);
    if (!w->path) {
        if (w->on)
            w->close(w->eng);
        w->on = 0;
        return -ENOMEM;
    }
    w->from = from;
    w->to = to;
    w->pending = !w->on || to != UINT64_MAX;
    return 0;
}
