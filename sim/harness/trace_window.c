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

void trace_window_close(trace_window_t *w)
{
    if (w->on)
        w->close(w->eng);
    w->on = 0;
    w->pending = 0;
    free(w->path);
    w->path = NULL;
}

void trace_window_edge(trace_window_t *w, uint64_t now)
{
    if (w->on && now >= w->to) {
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
