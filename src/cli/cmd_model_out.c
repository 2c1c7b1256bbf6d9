/* nvscale model: the output, rendered in memory (a table or a JSON document) and written to stdout or
 * --output whole or not at all (cmd_model_priv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_model_priv.h"
#include "core/err.h"
#include "core/out_file.h"

/* Write the rendered output to stdout or --output, whole or not at all. */
static int emit(const char *path, const char *text)
{
    if (path) /* it says what went wrong: exit 2 for a path that cannot be written, 1 for a failed write */
        return nvs_exit_code(nvs_write_text_file(path, text));
    size_t len = strlen(text);
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nvscale model: writing to stdout failed: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

/* Render into memory: a FILE* for the printers, or a JSON document. */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} membuf;

static int mem_open(membuf *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? 0 : -1;
}

static int mem_close(membuf *m)
{
    int bad = ferror(m->f) != 0;
    bad |= fclose(m->f) != 0;
    m->f = NULL;
    return bad ? -1 : 0;
}

static int emit_json(const char *path, json_t *doc)
{
    if (!doc) {
        fprintf(stderr, "nvscale model: out of memory building the JSON output\n");
        return 1;
    }
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(doc);
    if (!text) {
        fprintf(stderr, "nvscale model: out of memory writing the JSON output\n");
        return 1;
    }
    size_t len = strlen(text);
    char *withnl = malloc(len + 2);
    if (!withnl) {
        free(text);
        return 1;
    }
    memcpy(withnl, text, len);
    withnl[len] = '\n';
    withnl[len + 1] = '\0';
    free(text);
    int rc = emit(path, withnl);
    free(withnl);
    return rc;
}

int nvs_cm_render_and_emit(const opts *o, int json, void (*print)(FILE *, const void *), const void *arg,
                           json_t *doc)
{
    if (json) return emit_json(o->output, doc);
    membuf m;
    if (mem_open(&m)) return 1;
    print(m.f, arg);
    if (mem_close(&m)) {
        free(m.buf);
        fprintf(stderr, "nvscale model: out of memory rendering the table\n");
        return 1;
    }
    int rc = emit(o->output, m.buf);
    free(m.buf);
    return rc;
}
