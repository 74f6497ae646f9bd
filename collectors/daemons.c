/* daemons.c - the daemons collector: which time daemons run, each one's
 * youngest process (PID and age), ptp4l and phc2sys restarts, from
 * `ps -C chronyd,ntpd,systemd-timesyn,ptp4l,phc2sys -o pid=,etimes=,comm=`
 * (`ps -e -o comm=` where ps has no etimes: busybox), and phc2sys's command
 * lines (`ps -C phc2sys -o comm=,args=`), parsed by daemons_parse.c.
 *
 * A restart is judged by the process's age (etimes, the node's boot-time
 * clock), never by a wall-clock start time: a clock step would look like a
 * restart.  The previous poll's answer is the carry hook's before
 * (daemons_track); the time a restart was found stays in the node's
 * observation from poll to poll, so ptp.daemon_restarted lasts
 * daemon_restart_warn_s.  chronyd's restarts are recorded (JSON, the
 * drill-down) but not judged.
 *
 * The second ps runs only where phc2sys runs (listing every process's
 * arguments would cost each node tens of KiB a poll), and then once every
 * 30 polls: it costs as much CPU as the first (~9 ms on the lab VM) and
 * phc2sys's options seldom change, so the probe shell keeps its answer in
 * $synctop_args between polls and prints it each time (a new connection
 * starts afresh; an empty answer is asked again next poll).
 *
 * The function leaves the process list in $synctop_ps for the phc_ctl
 * collector, which runs later in the same request (registry.c). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "container_parse.h"
#include "daemon_steering.h"
#include "daemons_parse.h"
#include "json_value.h"

static const unsigned daemon_bits[DAEMON_KINDS] = {
	DAEMON_CHRONYD, DAEMON_NTPD, DAEMON_TIMESYNCD, DAEMON_PTP4L, DAEMON_PHC2SYS,
};

static void daemons_decode(const tool_output *out, observation *obs)
{
	daemons_parse(out, &obs->daemons);
}

static void daemons_carry(observation *now, const observation *before)
{
	daemons_track(&now->daemons, &before->daemons, now->taken_at);
}

/* POSIX sh.  Only the five daemons are listed (ps -C): a GPU node runs a
 * thousand processes and more (a kernel thread per CPU and kind), and every
 * one of them in each answer would cost the link tens of KiB a poll and
 * synctop their decoding.  ps reads every process's stat all the same
 * (bench/node-tools: -C costs the node what -e does; pgrep then ps -p, or
 * ps -p alone, cost as much again: procps scans /proc whatever it prints).
 * -C finding none exits 1 with nothing printed: no daemon, not a failure.
 * etimes is procps-ng's (3.3.0, 2011); a ps without it (busybox, which has
 * no -C either: asked once per connection, in $synctop_psc) lists every
 * name, its complaint left in the section's stderr (the raw view). */
static const char daemons_functions[] =
	"synctop_daemons() {\n"
	"	if [ -z \"$synctop_psc\" ]; then\n"
	"		synctop_psc=e\n"
	"		ps -o pid=,etimes=,comm= -p $$ >/dev/null 2>&1 && synctop_psc=C\n"
	"	fi\n"
	"	if [ \"$synctop_psc\" = C ]; then\n"
	"		synctop_ps=$(ps -C chronyd,ntpd,systemd-timesyn,ptp4l,phc2sys -o pid=,etimes=,comm=)\n"
	"		synctop_r=$?\n"
	"		if [ \"$synctop_r\" -eq 1 ] && [ -z \"$synctop_ps\" ]; then\n"
	"			synctop_r=0\n"
	"			synctop_ps=::none\n"
	"		fi\n"
	"	else\n"
	"		synctop_ps=$(ps -e -o comm=)\n"
	"		synctop_r=$?\n"
	"	fi\n"
	"	[ -z \"$synctop_ps\" ] || printf \"%s\\n\" \"$synctop_ps\"\n"
	"	case $synctop_ps in\n"
	"	*phc2sys*)\n"
	"		synctop_n=$((synctop_n + 1))\n"
	"		if [ -z \"$synctop_args\" ] || [ \"$synctop_n\" -ge 30 ]; then\n"
	"			synctop_args=$(ps -C phc2sys -o comm=,args=)\n"
	"			synctop_n=0\n"
	"		fi\n"
	"		[ -z \"$synctop_args\" ] || printf \"%s\\n\" \"$synctop_args\"\n"
	"		;;\n"
	"	*) synctop_args= ;;\n"
	"	esac\n"
	"	synctop_places\n"
	"	return $synctop_r\n"
	"}\n"
	/* Where each daemon's process runs and whether it may set the clock,
	 * read by the shell itself (builtins and redirections: no process
	 * started, no round trip): for each line of $synctop_ps that names a
	 * daemon and starts with its PID, "::proc PID", its cgroup lines but
	 * a v1 hierarchy's root ("N:ctrl:/" tells nothing; the unified "0::/"
	 * is kept), its CapEff and its uid_map (daemons_parse.h).  IFS is a
	 * newline and globbing off while the lines are walked.  sh's read
	 * takes a byte per system call: status is left at CapEff (measured on
	 * the lab VM with dash: ~0.8 ms of node CPU per daemon, ~150 bytes of
	 * answer each on a hybrid host, less on pure v2).
	 * A process's cgroup and user namespace do not change, and a daemon
	 * drops its capabilities at start: so the block is read again only
	 * when the daemons' PIDs changed (a restart, a daemon started or
	 * stopped) and every 30 polls, and printed from $synctop_po between
	 * (bench/node-tools: the section's node CPU). */
	"synctop_places() {\n"
	"	synctop_f=$IFS\n"
	"	IFS=\"\n\"\n"
	"	set -f\n"
	"	synctop_k=\n"
	"	for synctop_l in $synctop_ps; do\n"
	"		case ${synctop_l##* } in\n"
	"		chronyd|ntpd|systemd-timesyn|ptp4l|phc2sys) ;;\n"
	"		*) continue ;;\n"
	"		esac\n"
	"		synctop_l=${synctop_l#\"${synctop_l%%[! ]*}\"}\n"
	"		synctop_p=${synctop_l%% *}\n"
	"		case $synctop_p in \"\"|*[!0-9]*) continue ;; esac\n"
	"		synctop_k=\"$synctop_k$synctop_p\n\"\n"
	"	done\n"
	"	synctop_pn=$((synctop_pn + 1))\n"
	"	if [ \"$synctop_k\" != \"$synctop_pk\" ] || [ \"$synctop_pn\" -ge 30 ]; then\n"
	"		synctop_pk=$synctop_k\n"
	"		synctop_pn=0\n"
	"		synctop_po=\n"
	"		for synctop_p in $synctop_k; do\n"
	"			synctop_po=\"$synctop_po::proc $synctop_p\n\"\n"
	"			while IFS= read -r synctop_l; do\n"
	"				case $synctop_l in [1-9]*:/) ;; *) synctop_po=\"$synctop_po::cg $synctop_l\n\" ;; esac\n"
	"			done 2>/dev/null </proc/$synctop_p/cgroup\n"
	"			while IFS= read -r synctop_l; do\n"
	"				case $synctop_l in CapEff:*) synctop_po=\"$synctop_po::cap ${synctop_l#CapEff:}\n\"; break ;; esac\n"
	"			done 2>/dev/null </proc/$synctop_p/status\n"
	"			while IFS= read -r synctop_l; do synctop_po=\"$synctop_po::uid $synctop_l\n\"; done 2>/dev/null </proc/$synctop_p/uid_map\n"
	"		done\n"
	"	fi\n"
	"	[ -z \"$synctop_po\" ] || printf \"%s\" \"$synctop_po\"\n"
	"	set +f\n"
	"	IFS=$synctop_f\n"
	"}\n";

static obs_state daemons_part_state(const observation *obs)
{
	return obs->daemons.state;
}

static json_t *proc_json(const daemons_obs *d, unsigned bit, bool *ok)
{
	const daemon_proc *p = &d->procs[daemon_index(bit)];
	if (!(d->running & bit)) {
		return json_null();
	}
	json_t *o = json_object();
	json_value_put(o, "processes", json_integer(p->count), ok);
	json_value_put(o, "pid", p->pid > 0 ? json_integer(p->pid) : json_null(), ok);
	json_value_put(o, "age_s", p->pid > 0 && p->age_s >= 0 ? json_integer(p->age_s) : json_null(), ok);
	json_value_put(o, "restarted_at", isfinite(p->restarted_at) ? json_value_time(p->restarted_at) : json_null(), ok);
	return o;
}

/* One process of "list": where it runs and whether it may set the clock. */
static json_t *place_json(const daemon_place *p, bool *ok)
{
	json_t *o = json_object();
	json_value_put(o, "pid", json_integer(p->pid), ok);
	json_value_put(o, "daemon", json_string(daemon_name(p->bit)), ok);
	json_value_put(o, "cgroup", p->cgroup_read ? json_value_text(p->cgroup, sizeof p->cgroup) : json_null(), ok);
	json_value_put(o, "container", p->container != CONTAINER_NONE ?
		       json_string(container_kind_name(p->container)) : json_null(), ok);
	json_value_put(o, "runtime", p->runtime != CONTAINER_NONE ?
		       json_string(container_kind_name(p->runtime)) : json_null(), ok);
	json_value_put(o, "can_set_time", p->can_set == CAN_SET_TIME_UNKNOWN ? json_null() :
		       json_boolean(p->can_set == CAN_SET_TIME_YES), ok);
	return o;
}

/* "daemons": which run, and each one's youngest process; then every
 * process with its place (appended last: earlier keys keep their order) */
static json_t *daemons_json(const observation *obs, bool *ok)
{
	const daemons_obs *d = &obs->daemons;
	if (obs_state_absent(d->state)) {
		return json_null();
	}
	bool good = d->state == OBS_OK;
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(d->state, d->error, sizeof d->error), ok);
	json_t *running = good ? json_array() : json_null();
	for (int i = 0; i < DAEMON_KINDS && good; i++) {
		if (d->running & daemon_bits[i]) {
			json_value_append(running, json_string(daemon_name(daemon_bits[i])), ok);
		}
	}
	json_value_put(o, "running", running, ok);
	for (int i = 0; i < DAEMON_KINDS; i++) {
		json_value_put(o, daemon_name(daemon_bits[i]),
			       good ? proc_json(d, daemon_bits[i], ok) : json_null(), ok);
	}
	json_t *list = good ? json_array() : json_null();
	for (int i = 0; good && i < d->n_places && i < DAEMONS_MAX_PLACES; i++) {
		json_value_append(list, place_json(&d->places[i], ok), ok);
	}
	json_value_put(o, "list", list, ok);
	json_value_put(o, "list_more", good ? json_value_count((size_t)(d->n_places_total - d->n_places)) :
		       json_null(), ok);
	return o;
}

static void emit_daemon_age(prom_writer *w, const observation *obs)
{
	const daemons_obs *d = &obs->daemons;
	if (d->state != OBS_OK) {
		return;
	}
	for (int i = 0; i < DAEMON_KINDS; i++) {
		const daemon_proc *p = &d->procs[i];
		if ((d->running & daemon_bits[i]) && p->pid > 0 && p->age_s >= 0) {
			prom_label l[] = {{"node", prom_node(w)}, {"daemon", daemon_name(daemon_bits[i])}};
			prom_sample(w, l, 2, (double)p->age_s);
		}
	}
}

/* Where each time daemon runs: one series per (daemon, container kind,
 * can set the clock), its value the number of processes that share them.
 * No pid or cgroup path label: a restart gives a new PID and a new pod a
 * new container ID, so each would start a series per restart; the labels
 * kept have a fixed, small set of values (docs/prometheus.md). */
static void emit_daemon_places(prom_writer *w, const observation *obs)
{
	const daemons_obs *d = &obs->daemons;
	if (d->state != OBS_OK) {
		return;
	}
	int n = json_value_clamp(d->n_places, DAEMONS_MAX_PLACES);
	for (int i = 0; i < n; i++) {
		const daemon_place *p = &d->places[i];
		bool seen = false;
		for (int k = 0; k < i && !seen; k++) {
			const daemon_place *q = &d->places[k];
			seen = q->bit == p->bit && q->container == p->container && q->can_set == p->can_set;
		}
		if (seen) {
			continue; /* counted with the first of its kind */
		}
		int count = 0;
		for (int k = i; k < n; k++) {
			const daemon_place *q = &d->places[k];
			count += q->bit == p->bit && q->container == p->container && q->can_set == p->can_set;
		}
		prom_label l[] = {{"node", prom_node(w)},
				  {"daemon", daemon_name(p->bit)},
				  {"container", container_kind_name(p->container)},
				  {"can_set_time", can_set_time_name(p->can_set)}};
		prom_sample(w, l, 4, count);
	}
}

static const prom_family daemons_prometheus[] = {
	{"synctop_daemon_age_seconds", "gauge",
	 "Age of the youngest process of each time daemon running (ps etimes); it falls back when the daemon restarts.",
	 NULL, emit_daemon_age},
	{"synctop_time_daemon_processes", "gauge",
	 "Time daemon processes by where they run (container: host or the container kind) and whether they "
	 "may set the clock (CAP_SYS_TIME in the initial user namespace: yes, no, unknown).",
	 NULL, emit_daemon_places},
};

/* "42 s", "12 min", "3 h", "2 d" */
static void age_text(double s, char *buf, size_t len)
{
	if (!(s >= 0)) {
		snprintf(buf, len, "an unknown time");
	} else if (s < 120) {
		snprintf(buf, len, "%.0f s", s);
	} else if (s < 7200) {
		snprintf(buf, len, "%.0f min", s / 60);
	} else if (s < 172800) {
		snprintf(buf, len, "%.0f h", s / 3600);
	} else {
		snprintf(buf, len, "%.0f d", s / 86400);
	}
}

/* "chronyd (PID 51234, kubepods /kubepods.slice/.../cri-containerd-3f2e1d0c9b8a.scope)" */
static const char *place_text(const daemon_place *p, char *buf, size_t len)
{
	char cg[96];
	container_shorten(p->cgroup_read ? p->cgroup : "cgroup unknown", cg, sizeof cg);
	if (p->container != CONTAINER_NONE) {
		snprintf(buf, len, "%s (PID %d, %s %s)", daemon_name(p->bit), p->pid,
			 container_kind_name(p->container), cg);
	} else {
		snprintf(buf, len, "%s (PID %d, %s)", daemon_name(p->bit), p->pid, cg);
	}
	return buf;
}

/* time.daemon_in_container: the guide's trap, a time daemon inside a
 * container (an image that ships its own ntpd, a container given
 * CAP_SYS_TIME).  Crit when one that may set the clock runs beside
 * another process that steers the same clock (daemon_steering.h: both
 * CLOCK_REALTIME), on the host or in another container: two masters of
 * one clock; time.conflicting_daemons counts only the host's, so the pair
 * is said once, here.  Warn when one cannot set the clock: it corrects
 * nothing and its numbers mislead.  Nothing when it is the node's only
 * steering daemon: chrony DaemonSets and OpenShift's PTP operator run so.
 * One finding of each severity, naming the first such process. */
static void container_rule(const observation *o, finding_list *out)
{
	const daemons_obs *d = &o->daemons;
	int n = d->n_places < DAEMONS_MAX_PLACES ? d->n_places : DAEMONS_MAX_PLACES;
	const daemon_place *crit = NULL, *partner = NULL, *warn = NULL;
	int n_crit = 0, n_warn = 0;
	for (int i = 0; i < n; i++) {
		const daemon_place *c = &d->places[i];
		if (c->container == CONTAINER_NONE) {
			continue;
		}
		if (c->can_set == CAN_SET_TIME_NO) {
			n_warn++;
			warn = warn ? warn : c;
			continue;
		}
		if (c->can_set != CAN_SET_TIME_YES) {
			continue;
		}
		for (int k = 0; k < n; k++) {
			const daemon_place *other = &d->places[k];
			if (daemon_may_set(other) && daemon_same_clock(o, c, other)) {
				n_crit++;
				if (!crit) {
					crit = c;
					partner = other;
				}
				break;
			}
		}
	}
	char a[160], b[160];
	finding f;
	if (crit) {
		finding_start(&f, SEVERITY_CRIT, "time.daemon_in_container");
		finding_message(&f, "%s can set the clock beside %s: both steer the system clock%s",
				place_text(crit, a, sizeof a), place_text(partner, b, sizeof b),
				n_crit > (partner->container != CONTAINER_NONE ? 2 : 1) ? " (and more)" : "");
		finding_hint(&f, "Keep one master of the clock: drop SYS_TIME from the container (no "
			     "`--cap-add SYS_TIME`, no `capabilities.add`, not privileged; or chronyd `-x`) "
			     "or stop the host's; check `grep CapEff /proc/PID/status` (bit 25).");
		health_add_finding(out, &f);
	}
	if (warn) {
		finding_start(&f, SEVERITY_WARN, "time.daemon_in_container");
		finding_message(&f, "%s cannot set the clock (no CAP_SYS_TIME in the initial user "
				"namespace)%s", place_text(warn, a, sizeof a),
				n_warn > 1 ? "; more containers alike" : "");
		finding_hint(&f, "It corrects nothing, and its offsets describe a clock it does not steer: "
			     "remove the daemon from the image and leave time to the host's daemon.");
		health_add_finding(out, &f);
	}
}

/* ptp.daemon_restarted: ptp4l or phc2sys restarted within the window
 * (not for a group that expects no PTP); time.daemon_in_container. */
static void daemons_rules(const health_context *ctx, finding_list *out)
{
	container_rule(ctx->obs, out);
	if (ctx->th->expect_ptp == EXPECT_NO) {
		return;
	}
	static const struct {
		unsigned bit;
		const char *hint;
	} judged[] = {
		{DAEMON_PTP4L, "`journalctl -u ptp4l` says why it stopped (a crash, an OOM kill, a restart by "
			       "a deployment or a watchdog); until its port is SLAVE again and the servo has "
			       "locked, its offsets do not say how well the node keeps time."},
		{DAEMON_PHC2SYS, "`journalctl -u phc2sys` says why it stopped (a crash, an OOM kill, a restart "
				 "by a deployment); while it was gone nothing steered the system clock from "
				 "the PHC."},
	};
	const observation *o = ctx->obs;
	const daemons_obs *d = &o->daemons;
	for (size_t k = 0; k < sizeof judged / sizeof judged[0]; k++) {
		const daemon_proc *p = &d->procs[daemon_index(judged[k].bit)];
		double ago = o->taken_at - p->restarted_at;
		if (!(d->running & judged[k].bit) || !isfinite(ago) || ago < 0 ||
		    ago >= ctx->th->daemon_restart_warn_s) {
			continue;
		}
		char when[32], age[32];
		age_text(ago, when, sizeof when);
		age_text(p->age_s >= 0 ? (double)p->age_s : NAN, age, sizeof age);
		finding f;
		finding_start(&f, SEVERITY_WARN, "ptp.daemon_restarted");
		if (p->restarted_now && p->previous_pid > 0 && p->previous_pid != p->pid) {
			finding_message(&f, "%s restarted since the last poll (PID %d, was %d; running %s)",
					daemon_name(judged[k].bit), p->pid, p->previous_pid, age);
		} else {
			finding_message(&f, "%s restarted %s ago (found by its process age; PID %d, running %s)",
					daemon_name(judged[k].bit), when, p->pid, age);
		}
		finding_hint(&f, "%s", judged[k].hint);
		health_add_finding(out, &f);
	}
}

static const threshold_key daemons_keys[] = {
	THRESHOLD_KEY(daemon_restart_warn_s, THRESHOLD_DOUBLE, NULL),
};

/* The drill-down: every time daemon's process, where it runs (its cgroup,
 * shortened) and whether it may set the clock; a containerized one in the
 * colour of time.daemon_in_container while the node has it. */
static void daemons_detail(const observation *obs, const detail_sink *out)
{
	static const char *const container_codes[] = {"time.daemon_in_container", NULL};
	static const detail_column cols[] = {
		{"DAEMON", false}, {"PID", true}, {"WHERE", false}, {"CGROUP", false}, {"SETS TIME", false},
	};
	const daemons_obs *d = &obs->daemons;
	char buf[160];
	if (d->state != OBS_OK) {
		snprintf(buf, sizeof buf, "%s: %.*s", obs_state_name(d->state), (int)strnlen(d->error, sizeof d->error),
			 d->error);
		out->text(out->ctx, buf, DETAIL_WARN);
		return;
	}
	if (d->n_places == 0) {
		out->text(out->ctx, d->running ? "ps gave no PIDs: where the daemons run is not known"
				 : "no time daemon runs", DETAIL_DIM);
		return;
	}
	out->table_begin(out->ctx, (int)(sizeof cols / sizeof cols[0]), cols);
	for (int i = 0; i < d->n_places && i < DAEMONS_MAX_PLACES; i++) {
		const daemon_place *p = &d->places[i];
		detail_tone tone = p->container != CONTAINER_NONE ? out->finding_tone(out->ctx, container_codes)
								 : DETAIL_PLAIN;
		out->table_row(out->ctx);
		out->table_cell(out->ctx, daemon_name(p->bit), tone);
		snprintf(buf, sizeof buf, "%d", p->pid);
		out->table_cell(out->ctx, buf, DETAIL_PLAIN);
		if (p->container == CONTAINER_NONE) {
			snprintf(buf, sizeof buf, "host");
		} else if (p->runtime != CONTAINER_NONE && p->runtime != p->container) {
			snprintf(buf, sizeof buf, "%s (%s)", container_kind_name(p->container),
				 container_kind_name(p->runtime));
		} else {
			snprintf(buf, sizeof buf, "%s", container_kind_name(p->container));
		}
		out->table_cell(out->ctx, buf, tone);
		container_shorten(p->cgroup_read ? p->cgroup : "unknown", buf, sizeof buf);
		out->table_cell(out->ctx, buf, p->cgroup_read ? DETAIL_PLAIN : DETAIL_DIM);
		out->table_cell(out->ctx, can_set_time_name(p->can_set),
				p->can_set == CAN_SET_TIME_UNKNOWN ? DETAIL_DIM : tone);
	}
	out->table_end(out->ctx);
	if (d->n_places_total > d->n_places) {
		snprintf(buf, sizeof buf, "%d more processes not listed", d->n_places_total - d->n_places);
		out->text(out->ctx, buf, DETAIL_DIM);
	}
}

/* ps's name for the daemon (comm, cut at 15 characters). */
static const char *comm_of(unsigned bit)
{
	return bit == DAEMON_TIMESYNCD ? "systemd-timesyn" : daemon_name(bit);
}

/* The demo: what this collector's function prints on a node whose daemons
 * are truth's (procps's columns, then the /proc block as the shell prints
 * it; a process that may set the clock with chronyd's CapEff after it
 * dropped root, one that may not with docker's default set).  Processes
 * without a place are listed by name; phc2sys's command line is not shown. */
static int daemons_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	(void)iface;
	(void)err;
	const daemons_obs *d = &truth->daemons;
	int n = d->n_places < DAEMONS_MAX_PLACES ? d->n_places : DAEMONS_MAX_PLACES;
	for (int i = 0; i < n; i++) {
		const daemon_place *p = &d->places[i];
		text_sink_printf(out, "%7d %7lld %s\n", p->pid, (long long)p->age_s, comm_of(p->bit));
	}
	/* and ps itself, never absent from its own list: just started, a PID
	 * above the daemons' */
	int ps_pid = 30000;
	for (int i = 0; i < n; i++) {
		ps_pid = d->places[i].pid >= ps_pid ? d->places[i].pid + 1000 : ps_pid;
	}
	text_sink_printf(out, "%7d %7d ps\n", ps_pid, 0);
	for (int k = 0; k < DAEMON_KINDS; k++) {
		int placed = 0;
		for (int i = 0; i < n; i++) {
			placed += d->places[i].bit == daemon_bits[k];
		}
		for (int c = placed; c < d->procs[k].count; c++) {
			text_sink_printf(out, "%s\n", comm_of(daemon_bits[k]));
		}
	}
	for (int i = 0; i < n; i++) {
		const daemon_place *p = &d->places[i];
		text_sink_printf(out, "::proc %d\n", p->pid);
		if (p->cgroup_read) {
			text_sink_printf(out, "::cg 0::%s\n", p->cgroup);
		}
		if (p->can_set != CAN_SET_TIME_UNKNOWN) {
			text_sink_printf(out, "::cap \t%s\n", p->can_set == CAN_SET_TIME_YES ? "0000000002000400"
											   : "00000000a80425fb");
			text_sink_printf(out, "::uid %10u %10u %10u\n", 0u, 0u, 4294967295u);
		}
	}
	return 0;
}

const collector daemons_collector = {
	.name = "daemons",
	.title = "time daemons running, their PIDs and ages (ps)",
	.shell_functions = daemons_functions,
	.command = "synctop_daemons",
	.cadence = COLLECT_EVERY_POLL,
	.decode = daemons_decode,
	.carry = daemons_carry,
	.json_key = "daemons",
	.json = daemons_json,
	.part_state = daemons_part_state,
	.prometheus = daemons_prometheus,
	.n_prometheus = sizeof daemons_prometheus / sizeof daemons_prometheus[0],
	.rules = daemons_rules,
	.detail_title = "Where the time daemons run",
	.detail = daemons_detail,
	.demo_render = daemons_render,
	.threshold_keys = daemons_keys,
	.n_threshold_keys = sizeof daemons_keys / sizeof daemons_keys[0],
};
