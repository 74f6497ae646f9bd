# targets.sh - the fuzz target list, in one place (sourced by tests/fuzz/run,
# replay.sh and make-corpus).
#
#   fuzz_targets DIR   prints NAME for every DIR/fuzz_NAME.c that defines
#                      LLVMFuzzerTestOneInput, one a line, sorted
#
# A target is its source file: adding tests/fuzz/fuzz_NAME.c (plus seeds in
# corpus/NAME) makes it a target everywhere.  Only Makefile.am must also name
# it (automake needs program names written out: fuzz_replay and the
# tests_fuzz_replay_NAME_* lines), and replay.sh fails for a target whose
# replay_NAME it does not find built, so a missing entry cannot go unseen.
fuzz_targets() {
	grep -l '^int LLVMFuzzerTestOneInput' "$1"/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||' | LC_ALL=C sort
}
