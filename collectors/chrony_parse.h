/* chrony_parse.h - pure parsers for chronyc output.  Text in, chrony_obs out.
 *
 * Sign conventions (verified against the captured fixtures of the same state):
 *   chronyc -c tracking field 5 ("System time") is chrony's correction:
 *     positive = the node is slow = node - reference is negative.  We negate it.
 *   chronyc tracking text: "X seconds slow of NTP time" -> -X, "fast" -> +X.
 *   "Last offset" is already local - reference (chronyc docs).  Kept as is.
 *   Frequency: CSV positive = "ppm fast"; text "X ppm slow" -> -X.  Kept as is.
 *     (chronyc's client.c prints the CSV number raw and picks the word from
 *     its sign: "slow" for a positive System time, "fast" for a positive
 *     Frequency; the fixture pairs agree.)
 *   sources fields 8 and 9 (adjusted offset, then measured offset, the
 *   "xxxx [ yyyy ]" of the text) and sourcestats field 7 (Offset) are already
 *   node - source: positive = the local clock is ahead.  Kept as is.
 *     chronyc docs, sources: "Positive offsets indicate that the local clock
 *     is ahead of the source"; chrony's sourcestats.c keeps both offsets
 *     "+ve => local fast" and reports them unchanged; CSV and text print the
 *     same sign (chronyc-c-n-sources-node3 0.000000963 = text "+963ns",
 *     chronyc-c-sourcestats-synced -0.000003254 = text "-3255ns").
 */
#ifndef SYNCTOP_CHRONY_PARSE_H
#define SYNCTOP_CHRONY_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "observation.h"
#include "text_span.h"
#include "text_sink.h"
#include "tool_output.h"

/* Output of `chronyc -c -n -m tracking sources sourcestats`: one tracking
 * record, then sources records, then sourcestats records, no separators.
 * Always fills dst completely (chrony_obs_init first): on failure dst->state
 * says why and dst->error explains it for a person. */
void chrony_parse_csv(const tool_output *out, chrony_obs *dst);

/* A leap status exactly as chronyc prints it ("Normal", "Insert second",
 * "Delete second", "Not synchronised"; "Invalid" reads as unknown). */
bool chrony_parse_leap(text_span s, chrony_leap *out);

/* How a chronyc call failed, whatever its report: not installed, chronyd
 * not answering, a refusal ("501 Not authorised"), another chronyd error,
 * or a non-zero exit.  True with *state and error (a sentence for a
 * person, remote text quoted and sanitised) when it failed; false when the
 * output is to be parsed. */
bool chrony_parse_failure(const tool_output *out, obs_state *state, char *error, size_t error_len);

/* The records of a `chronyc -c` listing (selectdata, ntpdata): one per
 * non-blank line, its fields split at commas.  chrony_csv_begin after
 * chrony_parse_failure said the output is to be parsed. */
typedef struct {
	text_span rest;  /* what is left of the output */
	text_span text;  /* the current record, for a message's quote */
	int line;        /* its line number, from 1 */
	bool terminated; /* false: the output ended inside this record */
} chrony_csv;

void chrony_csv_begin(chrony_csv *c, const tool_output *out);
/* The next record: its fields in f[0..max), their count in *n (max + 1
 * when there are more); false after the last record. */
bool chrony_csv_next(chrony_csv *c, text_span *f, int max, int *n);
/* What a bad record makes of the whole listing: OBS_GARBAGE, or
 * OBS_TRUNCATED when the output was cut inside it; error says "chronyc
 * COMMAND line N: WHY \"QUOTE\"" (what and the quote bounded, sanitised). */
obs_state chrony_csv_fail(const chrony_csv *c, const char *command, const char *why, text_span quote, char *error,
			  size_t error_len);

/* The other way round, for the demo renderers: what chronyc prints for a
 * part that did not answer (state), the exit status returned; error goes
 * to stderr where chronyc has no words of its own.  chrony_parse_failure
 * reads it back as the same state. */
int chrony_render_failure(obs_state state, const char *error, text_sink *out, text_sink *err);

/* Human-readable `chronyc tracking`.  Not on the polling path (chronyc -c
 * has existed since chrony 2.x): it is the oracle for the sign conventions.
 * chronyc's CSV prints bare signed numbers, its text says "slow"/"fast" in
 * words; test_chrony_parse reads both captures of one state through both
 * parsers and requires the same node - reference values (DESIGN.md, Signs).
 * Fills dst->tracking; lines that are absent stay unknown. */
void chrony_parse_tracking_text(const tool_output *out, chrony_obs *dst);

#endif
