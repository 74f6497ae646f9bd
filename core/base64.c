/* base64.c - base64 decoding (strict and lenient) and encoding. */
#include <config.h>

#include "base64.h"

#include <stdint.h>

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(unsigned char ch)
{
	if (ch >= 'A' && ch <= 'Z') {
		return ch - 'A';
	}
	if (ch >= 'a' && ch <= 'z') {
		return ch - 'a' + 26;
	}
	if (ch >= '0' && ch <= '9') {
		return ch - '0' + 52;
	}
	if (ch == '+') {
		return 62;
	}
	if (ch == '/') {
		return 63;
	}
	return -1;
}

/* Strict decoder: alphabet characters, then at most two '=' that complete
 * the last quantum (or none).  False on anything else or when out is too
 * small. */
bool base64_decode(const char *s, size_t n, unsigned char *out, size_t cap, size_t *out_len)
{
	size_t pad = 0;
	while (pad < 2 && n > 0 && s[n - 1] == '=') {
		n--;
		pad++;
	}
	if (n % 4 == 1 || (pad > 0 && (n + pad) % 4 != 0)) {
		return false;
	}
	size_t o = 0;
	uint32_t acc = 0;
	unsigned bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = b64_value((unsigned char)s[i]);
		if (v < 0) {
			return false;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == cap) {
				return false;
			}
			out[o++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	*out_len = o;
	return true;
}

/* Encode with or without '=' padding.  Returns the length written (NUL
 * added), or 0 when it does not fit. */
size_t base64_encode(const unsigned char *in, size_t n, bool pad, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;
		size_t left = n - i;
		if (left > 1) {
			v |= (uint32_t)in[i + 1] << 8;
		}
		if (left > 2) {
			v |= in[i + 2];
		}
		size_t chars = left >= 3 ? 4 : left + 1;
		size_t emit = pad ? 4 : chars;
		if (o + emit + 1 > cap) {
			return 0;
		}
		for (size_t j = 0; j < emit; j++) {
			out[o++] = j < chars ? b64_alphabet[(v >> (18 - 6 * j)) & 63] : '=';
		}
	}
	if (o + 1 > cap) {
		return 0;
	}
	out[o] = '\0';
	return o;
}

size_t base64_decode_lenient(const char *text, size_t len, unsigned char *out, size_t cap)
{
	size_t n = 0;
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < len && n < cap; i++) {
		unsigned char ch = (unsigned char)text[i];
		if (ch == '\n' || ch == '\r' || ch == ' ' || ch == '\t') {
			continue;
		}
		int v = b64_value(ch);
		if (v < 0) {
			break;
		}
		acc = ((acc << 6) | (unsigned)v) & 0x3fff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return n;
}
