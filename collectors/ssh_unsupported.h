/* ssh_unsupported.h - what synctop tells a person whose OpenSSH setup needs
 * something its built-in SSH client (libssh2) cannot do, and what they can
 * do about it today (--transport ssh first: the system ssh client does it).  Every such message is built from these texts, so
 * when synctop learns a new route (ProxyJump, the system ssh client) the
 * advice changes here and nowhere else. */
#ifndef SYNCTOP_SSH_UNSUPPORTED_H
#define SYNCTOP_SSH_UNSUPPORTED_H

/* ProxyCommand, Bind*, and anything else that routes the connection some
 * other way (ProxyJump is followed natively: ssh_jump.h). */
#define SSH_UNSUPPORTED_ROUTE_FIX \
	"if the route is through jump hosts, say so with ProxyJump (or -J), which synctop follows; " \
	"otherwise use --transport ssh (the system ssh client, which honours it; \"transport\": \"ssh\" for a " \
	"group in --config), or run synctop where the nodes are reachable directly (on the jump host, for example), " \
	"or forward a local port to each node (ssh -fNL PORT:NODE:22 JUMPHOST) and give synctop " \
	"a config with HostName localhost, that Port and HostKeyAlias NODE (-F FILE)"

/* Authentication only OpenSSH can do (Kerberos, certificates, PKCS#11,
 * FIDO): said when a node's authentication fails. */
#define SSH_UNSUPPORTED_AUTH_FIX \
	"synctop's built-in SSH client uses agent keys and key files only: use --transport ssh (the " \
	"system ssh client does Kerberos, certificates, PKCS#11 and FIDO keys), or give the node a plain " \
	"key (IdentityFile or ssh-add)"

/* A host known only through @cert-authority. */
#define SSH_UNSUPPORTED_HOSTCERT_FIX \
	"synctop's built-in SSH client (libssh2) cannot check host certificates: use --transport ssh " \
	"(the system ssh client checks them), or add the node's own host key to known_hosts " \
	"(ssh-keyscan -t ed25519 NODE, after checking the fingerprint on the node)"

#endif
