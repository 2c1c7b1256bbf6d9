/* Subcommands: each is `int cmd_<name>(int argc, char **argv)` with argv[0] = the subcommand name, returning
 * the process exit code (0 ok, 1 runtime error, 2 usage/input error, 3 check failed).
 *
 * How to add a subcommand:
 *   1. write src/cli/cmd_<name>.c with cmd_<name>(), parsing its own flags or using nvs_config_parse() for the
 *      measuring flags; print usage on -h/--help; the work itself goes in the layer that owns it (src/LAYERS);
 *   2. declare it here and add a row to the table in src/cli/main.c (name, function, one-line summary);
 *   3. add an end-to-end test under tests/t/ (at least: --help works, a bad flag exits 2 with a message). */
#ifndef NVS_COMMANDS_H
#define NVS_COMMANDS_H

int cmd_run(int argc, char **argv);
int cmd_coll(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_p2p(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_accept(int argc, char **argv);
int cmd_model(int argc, char **argv);

#endif
