# lab_ports.sh - free TCP ports on 127.0.0.1 for labs that listen on
# loopback (sourced).  The kernel picks them (bind to port 0); they are
# released at once, so a test takes them right before starting its servers.
lab_free_ports() { # how many; prints the ports, one word each
	python3 -c 'import socket,sys
s=[socket.socket() for _ in range(int(sys.argv[1]))]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))' "$1"
}
