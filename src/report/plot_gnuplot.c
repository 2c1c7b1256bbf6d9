/* gnuplot: found on PATH, its script (plots.gp) written from the plot_defs (plot_priv.h), text quoted into a
 * script or a data file, and gnuplot run as a child process (report.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/escape.h"
#include "core/log.h"
#include "core/out_file.h"
#include "report/plot_priv.h"

/* Image size in pixels: readable on a laptop screen and in a Markdown viewer at full width. */
#define PLOT_W 900
#define PLOT_H 540

int nvs_find_on_path(const char *prog, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path) return -1;
    const char *p = path;
    while (1) {
        size_t n = strcspn(p, ":");
        /* an empty PATH entry means the current directory (POSIX) */
        int w = n ? snprintf(buf, len, "%.*s/%s", (int)n, p, prog) : snprintf(buf, len, "./%s", prog);
        struct stat st;
        if (w > 0 && (size_t)w < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return 0;
        if (!p[n]) break;
        p += n + 1;
    }
    return -1;
}

/* A gnuplot single-quoted string: gnuplot expands nothing inside single quotes (no backslash escapes, no
 * `command` substitution; the terminal is noenhanced, so no markup either), a quote is doubled. Control
 * characters, a line end above all, are made visible (core/escape.h) so that nothing ends the command. */
void nvs_plot_quote(FILE *f, const char *s)
{
    char buf[NVS_ESC_SIZE(160)];
    nvs_esc_term(s, buf, sizeof buf);
    fputc('\'', f);
    for (const char *c = buf; *c; c++) {
        if (*c == '\'')
            fputs("''", f);
        else
            fputc(*c == '\t' ? ' ' : *c, f);
    }
    fputc('\'', f);
}

/* A comment line of a data file: one line, whatever the text holds (a line end would start a data row) */
void nvs_plot_comment(FILE *f, const char *text)
{
    fputs("# ", f);
    nvs_esc_fputs(NVS_ESC_TERM, text, f);
    fputc('\n', f);
}

static void script_plot(FILE *f, const plot_def *p, const char *ext)
{
    fprintf(f, "reset\nset output '%s.%s.tmp'\nset title ", p->file, ext);
    nvs_plot_quote(f, p->title);
    fprintf(f, "\nset grid\nset key top left\n");
    if (p->kind == 0 && p->placeholder) {
        fprintf(f, "set xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\nunset grid\nset key below\n"
                   "set label 1 'nothing drawn: every message size of every GPU count failed its result check "
                   "(see the collective''s table)' at graph 0.5,0.5 center\nplot ");
        for (int i = 0; i < p->ns; i++) {
            fputs(i ? ", \\\n     " : "", f);
            fputs("NaN with lines lt nodraw title ", f);
            nvs_plot_quote(f, p->s[i].title);
        }
        fprintf(f, "\n");
    } else if (p->kind == 0) {
        /* log scale on both axes: NVLink (hundreds of GB/s), SHM (tens) and sockets (a few) stay readable on
         * one plot; the bounds are dashed */
        fprintf(f, "set xlabel 'message size (bytes)'\nset ylabel 'busbw (GB/s, log scale)'\nset logscale x 2\n"
                   "set logscale y 10\nset format x '%%.0b%%B'\nset format y '%%g'\nset key below\nplot ");
        for (int i = 0, block = 0; i < p->ns; i++) {
            fputs(i ? ", \\\n     " : "", f);
            if (p->s[i].nodraw) /* its key entry alone: NaN draws nothing, 'lt nodraw' (gnuplot 5) no sample */
                fputs("NaN with lines lt nodraw title ", f);
            else
                fprintf(f, "'%s.dat' index %d using 1:2 with %s title ", p->file, block++,
                        p->s[i].bound ? "lines dt 2 lw 2" : "linespoints");
            nvs_plot_quote(f, p->s[i].title);
        }
        fprintf(f, "\n");
    } else if (p->kind == 1) {
        int lo = p->nx ? p->xtics[0] : 1, hi = lo;
        for (int i = 0; i < p->nx; i++) {
            if (p->xtics[i] < lo) lo = p->xtics[i];
            if (p->xtics[i] > hi) hi = p->xtics[i];
        }
        /* a margin around the first and last N so their points and tics are not on the border; 0-110 %, or up
         * to the largest point: a collective whose busbw grows with N, or a training efficiency above 100 %
         * (the report warns of it), was drawn off a fixed 0-110 % */
        double top = p->ymax > 105 ? ceil(p->ymax * 1.05 / 10) * 10 : 110;
        fprintf(f, "set xlabel 'GPUs (N)'\nset ylabel 'efficiency (%%)'\nset logscale x 2\nset xrange [%g:%g]\n"
                   "set yrange [0:%g]\nset key bottom left\nset xtics (", lo / 1.25, hi * 1.25, top);
        for (int i = 0; i < p->nx; i++) fprintf(f, "%s%d", i ? ", " : "", p->xtics[i]);
        fprintf(f, ")\nplot ");
        for (int i = 0; i < p->ns; i++) {
            fprintf(f, "%s'%s.dat' index %d using 1:2 with linespoints title ", i ? ", \\\n     " : "", p->file, i);
            nvs_plot_quote(f, p->s[i].title);
        }
        fprintf(f, "\n");
    } else {
        /* the labels slant down to the left, ending at their bar: slanting right (-30 degrees), the last bars'
         * labels ran off the image's right edge. The first label then reaches left by cos(30) of its length, so
         * the left margin (in characters) is at least that, less the half bar before the first tic. */
        int lm = (int)ceil(p->first_label * 0.87) - 1;
        if (lm > 10) fprintf(f, "set lmargin %d\n", lm);
        fprintf(
            f,
            "set ylabel 'time per step (ms)'\nset style data histograms\nset style histogram rowstacked\n"
            "set style fill solid 0.85 border -1\nset boxwidth 0.7\nset yrange [0:*]\nset xtics rotate by 30 right\n"
            /* the key below, off the bars: inside at the top left it hid the first bars' tops, and their
             * bars hid its "rest" entry, in a run whose steps reach the top of the plot */
            "set key below horizontal\n"
            "plot '%s.dat' using 2:xtic(1) title 'compute', '' using 3 title 'exposed communication', "
            "'' using 4 title 'rest: framework, slowed compute, waiting'\n",
            p->file);
    }
    fprintf(f, "unset output\n\n");
}

nvs_result_t nvs_pl_write_script(const char *dir, const plot_def *defs, int nd)
{
    nvs_outfile o;
    NVS_CHECK(nvs_pl_open_out(&o, dir, "plots.gp"));
    FILE *f = o.f;
    fprintf(f, "# Written by `nvscale report`: run `gnuplot plots.gp` in this directory to redraw the plots.\n"
               "# Images go to NAME.svg.tmp / NAME.png.tmp; nvscale renames them once gnuplot has succeeded.\n\n");
    fprintf(f, "set terminal svg size %d,%d noenhanced font 'Sans,11' background rgb 'white'\n\n", PLOT_W, PLOT_H);
    for (int i = 0; i < nd; i++) script_plot(f, &defs[i], "svg");
    /* pngcairo draws anti-aliased; the older libgd png terminal is the fallback where cairo is missing */
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size %d,%d noenhanced font 'Sans,10' background rgb 'white'\n"
               "} else {\n  set terminal png size %d,%d noenhanced\n}\n\n",
            PLOT_W, PLOT_H, PLOT_W, PLOT_H);
    for (int i = 0; i < nd; i++) script_plot(f, &defs[i], "png");
    return nvs_outfile_commit(&o);
}

/* Run `gnuplot SCRIPT` in dir; 0 if it exited 0. */
static int run_gnuplot_script(const char *gnuplot, const char *dir, const char *script)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        nvs_error("cannot start gnuplot: fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* gnuplot's own messages go to stderr; nvscale's stdout stays for its own output */
        if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0 || chdir(dir) != 0) _exit(126);
        execl(gnuplot, "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            nvs_error("waiting for gnuplot: %s", strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (WIFEXITED(st))
        nvs_error("gnuplot (%s) exited with status %d%s", gnuplot, WEXITSTATUS(st),
                  WEXITSTATUS(st) == 127   ? " (could not be run)"
                  : WEXITSTATUS(st) == 126 ? " (cannot enter the directory)"
                                           : "");
    else
        nvs_error("gnuplot (%s) was killed by signal %d", gnuplot, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
    return -1;
}

int nvs_plot_run_gnuplot(const char *gnuplot, const char *dir, const char *script)
{
    return run_gnuplot_script(gnuplot, dir, script);
}
