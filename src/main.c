/* main.c - synctop entry point. */
#include <config.h>

#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("synctop %s\n", PACKAGE_VERSION);
	return 0;
}
