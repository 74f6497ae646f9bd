/* test_container_parse.c - container runtimes in cgroup paths (pure v2,
 * v1 and hybrid; the host's own capture tests/fixtures/
 * proc-cgroup-hybrid-host.txt), CAP_SYS_TIME in CapEff, the initial user
 * namespace in uid_map, and the short form of a path for the drill-down. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "container_parse.h"
#include "fixture.h"

static daemon_place classify(const char *lines)
{
	daemon_place p;
	memset(&p, 0x5a, sizeof p);
	container_classify((text_span){lines, strlen(lines)}, &p);
	return p;
}

static void expect(const char *lines, container_kind kind, container_kind runtime, const char *cgroup)
{
	daemon_place p = classify(lines);
	assert_int_equal(p.container, kind);
	assert_int_equal(p.runtime, runtime);
	assert_string_equal(p.cgroup, cgroup);
	assert_true(p.cgroup_read);
}

/* This machine's own /proc/self/cgroup: a hybrid host (v1 hierarchies and
 * name=systemd beside the empty unified line), no container pattern; the
 * path shown is the one that is not "/". */
static void test_hybrid_host_capture(void **state)
{
	(void)state;
	size_t len;
	char *text = fixture_read("proc-cgroup-hybrid-host.txt", &len);
	daemon_place p;
	container_classify((text_span){text, len}, &p);
	assert_true(p.cgroup_read);
	assert_int_equal(p.container, CONTAINER_NONE);
	assert_string_equal(p.cgroup, "/process_api/1150c6ee58018ff9b06da243e730a504");
	free(text);
}

static void test_runtimes(void **state)
{
	(void)state;
	/* kubelet, cgroupfs driver on v1: the runtime cannot be told */
	expect("11:pids:/kubepods/burstable/pod1f2e/0a1b2c\n1:name=systemd:/kubepods/burstable/pod1f2e/0a1b2c\n",
	       CONTAINER_KUBEPODS, CONTAINER_NONE, "/kubepods/burstable/pod1f2e/0a1b2c");
	expect("0::/kubepods.slice/kubepods-pod9.slice/docker-0a1b.scope\n", CONTAINER_KUBEPODS,
	       CONTAINER_DOCKER, "/kubepods.slice/kubepods-pod9.slice/docker-0a1b.scope");
	/* containerd's systemd driver under containerd.service */
	expect("0::/system.slice/containerd.service/kubepods-besteffort-pod1.slice:cri-containerd:0a1b\n",
	       CONTAINER_KUBEPODS, CONTAINER_CONTAINERD,
	       "/system.slice/containerd.service/kubepods-besteffort-pod1.slice:cri-containerd:0a1b");
	expect("0::/system.slice/docker-0a1b.scope\n", CONTAINER_DOCKER, CONTAINER_DOCKER,
	       "/system.slice/docker-0a1b.scope");
	expect("0::/machine.slice/libpod-0a1b.scope/container\n", CONTAINER_LIBPOD, CONTAINER_LIBPOD,
	       "/machine.slice/libpod-0a1b.scope/container");
	expect("3:cpu:/libpod_parent/libpod-0a1b\n0::/\n", CONTAINER_LIBPOD, CONTAINER_LIBPOD,
	       "/libpod_parent/libpod-0a1b");
	expect("4:memory:/lxc/web1\n0::/\n", CONTAINER_LXC, CONTAINER_LXC, "/lxc/web1");
	/* monitors and the runtimes' own daemons are not containers */
	expect("0::/machine.slice/crio-conmon-0a1b.scope\n", CONTAINER_NONE, CONTAINER_NONE,
	       "/machine.slice/crio-conmon-0a1b.scope");
	expect("0::/machine.slice/libpod-conmon-0a1b.scope\n", CONTAINER_NONE, CONTAINER_NONE,
	       "/machine.slice/libpod-conmon-0a1b.scope");
	expect("0::/lxc.monitor.web1\n", CONTAINER_NONE, CONTAINER_NONE, "/lxc.monitor.web1");
	expect("0::/system.slice/docker.service\n", CONTAINER_NONE, CONTAINER_NONE, "/system.slice/docker.service");
	expect("0::/system.slice/containerd.service\n", CONTAINER_NONE, CONTAINER_NONE,
	       "/system.slice/containerd.service");
	/* a path that merely ends in a runtime's name */
	expect("0::/docker\n", CONTAINER_NONE, CONTAINER_NONE, "/docker");
	/* hybrid: the unified path first, then name=systemd's, then the rest */
	expect("1:name=systemd:/system.slice/a.service\n0::/system.slice/b.service\n", CONTAINER_NONE,
	       CONTAINER_NONE, "/system.slice/b.service");
	expect("2:cpu:/x\n1:name=systemd:/system.slice/a.service\n0::/\n", CONTAINER_NONE, CONTAINER_NONE,
	       "/system.slice/a.service");
	expect("0::/\n", CONTAINER_NONE, CONTAINER_NONE, "/");
}

static void test_not_cgroup_lines(void **state)
{
	(void)state;
	daemon_place p = classify("garbage\n:cpu:/docker/x\n1:cpu:relative\n\n");
	assert_false(p.cgroup_read);
	assert_int_equal(p.container, CONTAINER_NONE);
	assert_string_equal(p.cgroup, "");
	p = classify("1:cpu:/docker/\x1b[2Jx\n");
	assert_int_equal(p.container, CONTAINER_DOCKER);
	assert_null(strchr(p.cgroup, '\x1b'));
}

static void test_cap_sys_time(void **state)
{
	(void)state;
	bool has = false;
	assert_true(container_cap_sys_time((text_span){"\t000001ffffffffff", 17}, &has));
	assert_true(has);
	assert_true(container_cap_sys_time((text_span){"00000000a80425fb", 16}, &has));
	assert_false(has); /* docker's default set */
	assert_true(container_cap_sys_time((text_span){"0000000002000000 ", 17}, &has));
	assert_true(has);
	assert_true(container_cap_sys_time((text_span){"000001fffeffffff", 16}, &has));
	assert_true(has); /* this machine's: CAP_SYS_RESOURCE (24) dropped, 25 kept */
	assert_false(container_cap_sys_time((text_span){"", 0}, &has));
	assert_false(container_cap_sys_time((text_span){"0x2000000", 9}, &has));
	assert_false(container_cap_sys_time((text_span){"00000000000000000", 17}, &has));
}

static void test_uid_map(void **state)
{
	(void)state;
	const char *init = "         0          0 4294967295\n";
	assert_true(container_uid_map_initial((text_span){init, strlen(init)}));
	const char *rootless = "         0       1000          1\n         1     100000      65536\n";
	assert_false(container_uid_map_initial((text_span){rootless, strlen(rootless)}));
	const char *lxd = "0 1000000 1000000000";
	assert_false(container_uid_map_initial((text_span){lxd, strlen(lxd)}));
	const char *twice = "0 0 4294967295\n0 0 4294967295\n";
	assert_false(container_uid_map_initial((text_span){twice, strlen(twice)}));
	assert_false(container_uid_map_initial((text_span){"", 0}));
}

static void test_shorten(void **state)
{
	(void)state;
	char buf[96];
	container_shorten("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod5c0e.slice/"
			  "cri-containerd-3f2e1d0c9b8a79685746352413020100ffeeddccbbaa99887766554433221100.scope",
			  buf, sizeof buf);
	assert_string_equal(buf, "/kubepods.slice/.../cri-containerd-3f2e1d0c9b8a.scope");
	container_shorten("/docker/c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", buf, sizeof buf);
	assert_string_equal(buf, "/docker/c0ffee00c0ff");
	container_shorten("/system.slice/chrony.service", buf, sizeof buf);
	assert_string_equal(buf, "/system.slice/chrony.service");
	container_shorten("/", buf, sizeof buf);
	assert_string_equal(buf, "/");
	container_shorten("", buf, sizeof buf);
	assert_string_equal(buf, "");
	container_shorten("/a/b/c/d", buf, 6);
	assert_string_equal(buf, "/a/..");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hybrid_host_capture),
		cmocka_unit_test(test_runtimes),
		cmocka_unit_test(test_not_cgroup_lines),
		cmocka_unit_test(test_cap_sys_time),
		cmocka_unit_test(test_uid_map),
		cmocka_unit_test(test_shorten),
	};
	return cmocka_run_group_tests_name("container_parse", tests, NULL, NULL);
}
