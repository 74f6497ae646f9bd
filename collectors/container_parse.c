/* container_parse.c - container runtimes recognised in a process's cgroup
 * path, CAP_SYS_TIME in its CapEff, the initial user namespace in its
 * uid_map.
 *
 * Runtimes name their cgroups this way (cgroupfs driver / systemd driver):
 *   kubelet     /kubepods/<qos>/pod<uid>/<id>, /kubepods.slice/kubepods-<qos>.slice/...
 *   docker      /docker/<id>, /system.slice/docker-<id>.scope
 *   containerd  cri-containerd-<id>.scope, ...slice:cri-containerd:<id>
 *   cri-o       crio-<id>.scope (crio-conmon-<id>.scope is its monitor)
 *   podman      libpod-<id>.scope, /libpod_parent/libpod-<id> (libpod-conmon-: monitor)
 *   lxc / lxd   /lxc/<name> (v1), /lxc.payload.<name> (lxc 4; lxc.monitor.: monitor)
 * A pod's scope names its runtime too: the pod is its kind, the scope its
 * runtime. */
#include <config.h>

#include "container_parse.h"

#include <stdio.h>
#include <string.h>

/* A runtime's container scope (not its monitor, not the daemon itself). */
static container_kind runtime_of(text_span c, text_span next)
{
	if ((text_span_starts(c, "docker-") && text_span_contains(c, ".scope")) ||
	    (text_span_eq(c, "docker") && next.n > 0)) {
		return CONTAINER_DOCKER;
	}
	if (text_span_starts(c, "cri-containerd-") || text_span_contains(c, ":cri-containerd:")) {
		return CONTAINER_CONTAINERD;
	}
	if (text_span_starts(c, "crio-") && !text_span_starts(c, "crio-conmon-")) {
		return CONTAINER_CRIO;
	}
	if ((text_span_starts(c, "libpod-") && !text_span_starts(c, "libpod-conmon-")) ||
	    text_span_eq(c, "libpod_parent")) {
		return CONTAINER_LIBPOD;
	}
	if ((text_span_eq(c, "lxc") && next.n > 0) || text_span_starts(c, "lxc.payload")) {
		return CONTAINER_LXC;
	}
	return CONTAINER_NONE;
}

/* The kind and runtime a path names. */
static void classify_path(text_span path, container_kind *kind, container_kind *runtime)
{
	text_span comps[64];
	int n = text_span_split(path, '/', comps, 64);
	if (n > 64) {
		n = 64;
	}
	bool pod = false;
	*runtime = CONTAINER_NONE;
	for (int i = 0; i < n; i++) {
		text_span next = i + 1 < n ? comps[i + 1] : (text_span){"", 0};
		if (text_span_starts(comps[i], "kubepods")) {
			pod = true;
		}
		container_kind r = runtime_of(comps[i], next);
		if (r != CONTAINER_NONE && *runtime == CONTAINER_NONE) {
			*runtime = r;
		}
	}
	*kind = pod ? CONTAINER_KUBEPODS : *runtime;
}

void container_classify(text_span cgroup_lines, daemon_place *dst)
{
	text_span rest = cgroup_lines, line;
	text_span unified = {NULL, 0}, systemd = {NULL, 0}, other = {NULL, 0}, any = {NULL, 0};
	bool terminated;
	dst->cgroup_read = false;
	dst->cgroup[0] = '\0';
	dst->container = CONTAINER_NONE;
	dst->runtime = CONTAINER_NONE;
	while (text_span_next_line(&rest, &line, &terminated)) {
		/* ID:CONTROLLERS:PATH; the path may hold ':' (containerd's
		 * "slice:cri-containerd:ID") */
		const char *c1 = memchr(line.p, ':', line.n);
		const char *c2 = c1 ? memchr(c1 + 1, ':', line.n - (size_t)(c1 + 1 - line.p)) : NULL;
		if (!c1 || !c2 || c1 == line.p) {
			continue;
		}
		text_span id = {line.p, (size_t)(c1 - line.p)};
		text_span ctrl = {c1 + 1, (size_t)(c2 - c1 - 1)};
		text_span path = {c2 + 1, line.n - (size_t)(c2 + 1 - line.p)};
		if (path.n == 0 || path.p[0] != '/') {
			continue;
		}
		dst->cgroup_read = true;
		container_kind kind, runtime;
		classify_path(path, &kind, &runtime);
		if (kind != CONTAINER_NONE && dst->container == CONTAINER_NONE) {
			dst->container = kind;
			dst->runtime = runtime;
			text_span_copy_printable(dst->cgroup, sizeof dst->cgroup, path);
		}
		if (text_span_eq(id, "0") && ctrl.n == 0) {
			unified = path;
		} else if (text_span_eq(ctrl, "name=systemd")) {
			systemd = path;
		} else if (other.n == 0 && !text_span_eq(path, "/")) {
			other = path;
		}
		if (any.n == 0) {
			any = path;
		}
	}
	if (dst->container != CONTAINER_NONE) {
		return;
	}
	text_span shown = unified.n > 0 && !text_span_eq(unified, "/") ? unified
			  : systemd.n > 0 && !text_span_eq(systemd, "/") ? systemd
			  : other.n > 0 ? other : unified.n > 0 ? unified : any;
	if (shown.n > 0) {
		text_span_copy_printable(dst->cgroup, sizeof dst->cgroup, shown);
	}
}

bool container_cap_sys_time(text_span capeff, bool *has_sys_time)
{
	text_span v = text_span_trim_space(capeff);
	if (v.n == 0 || v.n > 16) {
		return false;
	}
	unsigned long long mask = 0;
	for (size_t i = 0; i < v.n; i++) {
		char ch = v.p[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0'
			: ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
			: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (d < 0) {
			return false;
		}
		mask = mask << 4 | (unsigned long long)d;
	}
	*has_sys_time = (mask >> 25) & 1u; /* CAP_SYS_TIME, linux/capability.h */
	return true;
}

bool container_uid_map_initial(text_span uid_map_lines)
{
	text_span rest = uid_map_lines, line;
	bool terminated, initial = false;
	int lines = 0;
	while (text_span_next_line(&rest, &line, &terminated)) {
		text_span r = line, w[4];
		int k = 0;
		while (k < 4 && text_span_word(&r, &w[k])) {
			k++;
		}
		if (k == 0) {
			continue;
		}
		lines++;
		initial = k == 3 && text_span_eq(w[0], "0") && text_span_eq(w[1], "0") &&
			  text_span_eq(w[2], "4294967295");
	}
	return lines == 1 && initial;
}

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
}

/* Copies src[0..n) into buf at *at, cutting hex runs to 12. */
static void put_component(char *buf, size_t len, size_t *at, const char *src, size_t n)
{
	size_t run = 0;
	for (size_t i = 0; i < n && *at + 1 < len; i++) {
		run = is_hex(src[i]) ? run + 1 : 0;
		if (run > 12) {
			continue;
		}
		buf[(*at)++] = src[i];
	}
	buf[*at] = '\0';
}

void container_shorten(const char *path, char *buf, size_t len)
{
	if (len == 0) {
		return;
	}
	buf[0] = '\0';
	text_span comps[64];
	int n = text_span_split((text_span){path, strlen(path)}, '/', comps, 64);
	if (n > 64) {
		n = 64;
	}
	/* comps[0] is the empty text before the leading '/' */
	int first = n > 1 && comps[0].n == 0 ? 1 : 0;
	size_t at = 0;
	for (int i = first; i < n; i++) {
		if (i > first + 0 && i < n - 1 && n - first > 2) {
			if (i == first + 1) {
				put_component(buf, len, &at, "/...", 4);
			}
			continue;
		}
		if (first == 1 || i > first) {
			put_component(buf, len, &at, "/", 1);
		}
		put_component(buf, len, &at, comps[i].p, comps[i].n);
	}
}
