/* Output files appear whole or not at all, and nothing but the named file is ever touched. What the path names
 * decides how it is written (nvs_outfile_open):
 *
 *   does not exist yet, or a regular file    a temporary file beside it (the target of a symlink: the link
 *                                            stays), checked (fflush, ferror, fsync, fclose), then renamed
 *                                            over it; an existing file keeps its permission bits. A failure
 *                                            leaves no partial file and the old one untouched.
 *   character device or FIFO (or a link to   written through in place, appending: -o /dev/stdout, /dev/null,
 *   one), /dev/stdout, /dev/fd/N, /proc/..   a named pipe. A device node or link is never replaced by a file.
 *   directory, block device, socket,         refused: NVS_ERR_USAGE (exit 2) with one message.
 *   a link to nothing, a missing directory
 *
 * Errors in the path (exit 2: NVS_ERR_USAGE) are told apart from failures while writing (exit 1: a full disk,
 * an I/O error). Every error prints one message naming the path. */
#ifndef NVS_OUT_FILE_H
#define NVS_OUT_FILE_H

#include <stdio.h>

#include "core/err.h"

typedef struct {
    char path[4096]; /* as given, for messages */
    char dest[4096]; /* what is renamed over: the path, or the regular file a symlink points to */
    char tmp[4200];
    int through;     /* written in place (device, FIFO, /dev/stdout): no temporary file, no rename */
    int keep_mode;   /* replace an existing file with its permission bits (mode) */
    unsigned mode;
    FILE *f;
} nvs_outfile;

nvs_result_t nvs_outfile_open(nvs_outfile *o, const char *path);
nvs_result_t nvs_outfile_commit(nvs_outfile *o); /* closes; on failure removes the temp file */
void nvs_outfile_discard(nvs_outfile *o);

/* The test hook NVS_TEST_WRITE_FAIL=K (tests/t/faults_disk.sh): the K-th file this process commits, and every one
 * after it, fail as on a full disk (ENOSPC). Unset or empty: 0 with *k = 0 (off). A whole number of plain digits from
 * 1 to NVS_OUTFILE_FAIL_MAX: 0 with *k = K. Anything else (x, -1, 0, 1junk, " 1", +1): -1, *k = 0. The one reader of
 * the value, for the commit that acts on it and for the command line that refuses a bad one before anything is
 * written (cli/options_env.c nvs_cli_write_fail_env_ok), so that the two cannot read one value two ways. */
#define NVS_OUTFILE_FAIL_MAX (1L << 30)
int nvs_outfile_fail_env(long *k);

/* mkdir -p. A path that cannot be a directory (a file of that name, no permission, a read-only file system)
 * is NVS_ERR_USAGE; other failures (no space) NVS_ERR_SYSTEM. One message either way. */
nvs_result_t nvs_mkdir_p(const char *dir);
/* The directory in which making PATH (a file, or a directory with mkdir -p) would make something: the nearest of
 * PATH's ancestors that exists, or PATH itself first when `from_parent` is 0 (a directory that may be there
 * already: report -o); `from_parent` 1 starts at its parent (a new run directory: --out, which must not exist).
 * Only the name's components are cut ("a/b/c": "a/b", "a", then "."); "." for a relative path and "/" for an
 * absolute one end the walk whether they exist or not. Into ANC (LEN bytes): 0, or -1 when PATH does not fit.
 * Whether the answer exists, is a directory and can be written in is the caller's to check. */
int nvs_nearest_existing(const char *path, int from_parent, char *anc, size_t len);
/* Whether a symbolic link to nothing (`ln -s /nonexistent/x PATH`) stands where PATH is to be written or made: PATH
 * itself, or the ancestor at which the walk of nvs_nearest_existing would pass over it as missing (stat answers for
 * its target). Nothing can be made there: nvscale neither replaces a link nor makes what it points to. 1 with WHY
 * saying what it is, naming the link's target ("a symbolic link to '/nonexistent/x', which does not exist", with
 * "'DIR' is " before it when the link is an ancestor DIR), for "FLAG PATH: WHY"; else 0. Every output check calls
 * it (out_file.c, cli/cli_common.c, runjson/runjson_write.c): each said something else, report -o "a file of
 * that name exists". */
int nvs_link_to_nothing(const char *path, char *why, size_t len);
/* Why an output named PATH is refused when PATH is "-" or standard input by another name (/dev/stdin, /dev/fd/0,
 * /proc/self/fd/0: an input, read as '-' is; NULL for anything else): nvscale reads no name as standard
 * output. Where a single file is written, check's and accept's table is already on standard output and /dev/stdout
 * is written through (above); where a directory is written (DIR nonzero), nothing of it could go there. A file or
 * directory named '-' in the current directory is almost always that mistake; ./- still names one. Here, below
 * both the flag parsers (cli/) and the run directory's own check (runjson nvs_rj_check_out_dir), so that each
 * refuses it in these words. */
const char *nvs_out_dash_why(const char *path, int dir);
/* 1 when every name of PATH below ANC (its nearest existing ancestor, as nvs_nearest_existing found it) fits the
 * name limit of ANC's file system (pathconf _PC_NAME_MAX, else NAME_MAX), where mkdir will make them; 0 when one
 * is longer (mkdir would fail with ENAMETOOLONG; stat says only ENOENT while a name before it is missing). */
int nvs_names_fit(const char *path, const char *anc);
/* What nvs_mkdir_made made, to undo exactly that: `made[i]` is 1 when its own mkdir() created the directory named
 * by path's first i bytes; `last` when the directory path names was among them (the same directory, by device and
 * inode: "new/." names new). Found from mkdir's own answers,
 * not from the path's text: "T/x/../kept" where kept was there and x was not makes x alone (a walk of the text took
 * kept for made, and removed it and what it held when the command then failed). */
typedef struct {
    char path[4096];
    unsigned char made[4096];
    int any, last;
    /* with `last`: path's first `named` bytes, the one made directory that path names ("new", for "new/." or
     * "new/sub/.." as for "new"), for its undo with what was written into it */
    size_t named;
} nvs_made_dirs;
/* nvs_mkdir_p, recording in *m what it made, also when it fails part way (for nvs_unmake_dirs). */
nvs_result_t nvs_mkdir_made(const char *dir, nvs_made_dirs *m);
/* Undoes an nvs_mkdir_made that failed or whose output was refused: each directory it made, deepest first, while it
 * is empty (rmdir, never a tree: another command may have written there since); one already gone is passed over,
 * and the walk ends at the first that will not go (its parents hold it). Then *m records nothing. */
void nvs_unmake_dirs(nvs_made_dirs *m);
/* rm -r of a directory nvscale made (symbolic links inside are removed, never followed). 0, or -1. */
int nvs_remove_tree(const char *dir);
/* Whole-file helpers. */
nvs_result_t nvs_write_text_file(const char *path, const char *text);
/* "-" as an input names standard input, as for Unix tools (cat run.json | nvscale report -), where the command
 * line's table says so (cli/cli_common.c, "Standard input"); elsewhere it is refused, never opened as a file named
 * "-". /dev/stdin, /dev/fd/0 and /proc/self/fd/0 are standard input too, whatever it is (a pipe, a file
 * redirected with <): the same one input as "-", read the same way. nvs_input_is_stdin: PATH is one of these.
 * nvs_input_name: what messages call the input, "standard input" for them, else PATH itself. */
int nvs_input_is_stdin(const char *path);
const char *nvs_input_name(const char *path);
/* What PATH is when it can be read only once, for an input read more than once or by every rank of a launch
 * (mpirun gives standard input to rank 0 only, /dev/null to the others): "standard input" for "-"; for a pipe, a
 * character device or a socket, what it is ("standard input, a pipe" through /dev/stdin, /dev/fd/0 or
 * /proc/self/fd/0; "a named pipe"). NULL for anything else: a regular file (one redirected to /dev/stdin
 * included), or what the reader refuses itself (a missing file, a directory). */
const char *nvs_input_stream(const char *path);
/* Reads a whole file (NUL-terminated, malloc'd) up to max_bytes; NVS_ERR_INPUT with one message if it cannot.
 * Only regular files are read (a FIFO or device would block or never end): anything else is refused by name.
 * Standard input ("-", /dev/stdin, /dev/fd/0, /proc/self/fd/0) is read whatever it is (not a terminal: refused, it
 * would wait for typing), once: its text is kept, and a later read of it in the same process, by any of its names,
 * gets the same text. */
nvs_result_t nvs_read_text_file(const char *path, size_t max_bytes, char **out);
/* The check of nvs_read_text_file for readers that open files themselves (hwloc, jansson): 0 when `path` is a
 * regular file, else -1 with one message naming it ("cannot read WHAT 'PATH': ..." with `what`, e.g. "hwloc XML";
 * NULL: "PATH: ..."). Not for standard input (nvs_input_is_stdin: read it with nvs_read_text_file). `stdin_ok` 0:
 * a reader that cannot take standard input: the message does not suggest it. */
int nvs_input_file_ok(const char *path, const char *what, int stdin_ok);

#endif
