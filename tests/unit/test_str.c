#include "test.h"

#include <float.h>
#include <math.h>

#include "buf.h"
#include "str.h"

/* Edit distance. */

static const struct {
	const char	*a, *b;
	size_t		 cap;
	size_t		 want;
} distance_cases[] = {
	{ "", "", 10, 0 },
	{ "abc", "", 10, 3 },
	{ "", "abc", 10, 3 },
	{ "abc", "abc", 10, 0 },
	{ "kitten", "sitting", 10, 3 },
	{ "sitting", "kitten", 10, 3 },
	{ "flaw", "lawn", 10, 2 },
	{ "gpu", "gpus", 10, 1 },
	{ "gpus", "gpu", 10, 1 },
	{ "cpu", "gpus", 10, 2 },
	{ "memroy", "memory", 10, 2 },
	{ "GPUS", "gpus", 10, 0 },
	{ "Node_Exporter", "node_exporter", 10, 0 },
	/* Past the cap: cap + 1. */
	{ "kitten", "sitting", 3, 3 },
	{ "kitten", "sitting", 2, 3 },
	{ "kitten", "sitting", 0, 1 },
	{ "a", "abcdef", 2, 3 },
	{ "abcdef", "uvwxyz", 4, 5 },
};

START_TEST(test_str_distance_table)
{
	size_t	got = str_distance(distance_cases[_i].a,
	    distance_cases[_i].b, distance_cases[_i].cap);

	ck_assert_msg(got == distance_cases[_i].want,
	    "distance('%s', '%s', %zu) = %zu, want %zu", distance_cases[_i].a,
	    distance_cases[_i].b, distance_cases[_i].cap, got,
	    distance_cases[_i].want);
}
END_TEST

START_TEST(test_str_distance_long)
{
	char	a[65], b[65];

	memset(a, 'x', 63);
	a[63] = '\0';
	memcpy(b, a, 64);
	ck_assert_uint_eq(str_distance(a, b, 5), 0);
	b[62] = 'y';
	ck_assert_uint_eq(str_distance(a, b, 5), 1);
	/* Longer words are never near anything: too long to be typos of. */
	a[63] = 'x';
	a[64] = '\0';
	ck_assert_uint_eq(str_distance(a, a, 5), 6);
}
END_TEST

/* Suggestions. */

static const char *const suggest_cands[] = { "gpus", "cpus", "memory_gb",
    "nics", "hardware", "node_exporter", NULL };

static const struct {
	const char	*in;
	const char	*want;		/* NULL: no suggestion */
} suggest_cases[] = {
	{ "gpu", "gpus" },
	{ "cpu", "cpus" },
	{ "nic", "nics" },
	{ "GPUS", "gpus" },
	{ "hardwre", "hardware" },
	{ "hardwear", "hardware" },
	{ "memory-gb", "memory_gb" },
	{ "memroy_gb", "memory_gb" },
	{ "node-exportr", "node_exporter" },
	/* Equally near: the first candidate. */
	{ "xpus", "gpus" },
	/* Unrelated words get nothing. */
	{ "zzz", NULL },
	{ "network", NULL },
	{ "", NULL },
	{ "racks", NULL },
	{ "hardwareXXXX", NULL },
	{ "g", NULL },
};

START_TEST(test_str_suggest_table)
{
	const char	*got;

	got = str_suggest(suggest_cases[_i].in, suggest_cands);

	if (suggest_cases[_i].want == NULL)
		ck_assert_msg(got == NULL, "'%s' suggested '%s'",
		    suggest_cases[_i].in, got);
	else {
		ck_assert_msg(got != NULL, "'%s' suggested nothing",
		    suggest_cases[_i].in);
		ck_assert_str_eq(got, suggest_cases[_i].want);
		/* Borrowed from the candidates, not copied. */
		ck_assert(got == suggest_cands[0] || got == suggest_cands[1] ||
		    got == suggest_cands[2] || got == suggest_cands[3] ||
		    got == suggest_cands[4] || got == suggest_cands[5]);
	}
}
END_TEST

START_TEST(test_str_suggest_empty)
{
	static const char *const none[] = { NULL };

	ck_assert_ptr_null(str_suggest("gpu", none));
}
END_TEST

/* Numbers. */

static const struct {
	const char	*in;
	int		 ok;
	long		 want;
} long_cases[] = {
	{ "0", 1, 0 },
	{ "42", 1, 42 },
	{ "-42", 1, -42 },
	{ "+7", 1, 7 },
	{ "007", 1, 7 },
	{ "9223372036854775807", 1, LONG_MAX },
	{ "-9223372036854775808", 1, LONG_MIN },
	{ "9223372036854775808", 0, 0 },
	{ "-9223372036854775809", 0, 0 },
	{ "99999999999999999999999", 0, 0 },
	{ "", 0, 0 },
	{ " 1", 0, 0 },
	{ "\t1", 0, 0 },
	{ "\n1", 0, 0 },
	{ "1 ", 0, 0 },
	{ "1\n", 0, 0 },
	{ "12abc", 0, 0 },
	{ "abc", 0, 0 },
	{ "0x10", 0, 0 },
	{ "0X1f", 0, 0 },
	{ "1e3", 0, 0 },
	{ "1.0", 0, 0 },
	{ "1_000", 0, 0 },
	{ "1,000", 0, 0 },
	{ "-", 0, 0 },
	{ "+", 0, 0 },
	{ "--1", 0, 0 },
	{ "\xd9\xa1", 0, 0 },
};

START_TEST(test_str_to_long_table)
{
	long	v = 12345;
	int	r = str_to_long(long_cases[_i].in, &v);

	if (long_cases[_i].ok) {
		ck_assert_msg(r == 0, "'%s' refused", long_cases[_i].in);
		ck_assert_int_eq(v, long_cases[_i].want);
	} else {
		ck_assert_msg(r == -1, "'%s' accepted as %ld",
		    long_cases[_i].in, v);
		/* A refused value leaves the output alone. */
		ck_assert_int_eq(v, 12345);
	}
}
END_TEST

static const struct {
	const char	*in;
	int		 ok;
	unsigned long	 want;
} ulong_cases[] = {
	{ "0", 1, 0 },
	{ "42", 1, 42 },
	{ "9223372036854775807", 1, LONG_MAX },
	{ "-1", 0, 0 },
	{ "-42", 0, 0 },
	{ "18446744073709551615", 0, 0 },
	{ "18446744073709551616", 0, 0 },
	{ "1x", 0, 0 },
	{ " 1", 0, 0 },
	{ "0x1", 0, 0 },
	{ "", 0, 0 },
};

START_TEST(test_str_to_ulong_table)
{
	unsigned long	v = 777;
	int		r = str_to_ulong(ulong_cases[_i].in, &v);

	if (ulong_cases[_i].ok) {
		ck_assert_msg(r == 0, "'%s' refused", ulong_cases[_i].in);
		ck_assert_uint_eq(v, ulong_cases[_i].want);
	} else {
		ck_assert_msg(r == -1, "'%s' accepted as %lu",
		    ulong_cases[_i].in, v);
		ck_assert_uint_eq(v, 777);
	}
}
END_TEST

static const struct {
	const char	*in;
	int		 ok;
	double		 want;
} double_cases[] = {
	{ "0", 1, 0 },
	{ "2.5", 1, 2.5 },
	{ "-2.5", 1, -2.5 },
	{ "+1.5", 1, 1.5 },
	{ "1e3", 1, 1000 },
	{ "1E-2", 1, 0.01 },
	{ ".5", 1, 0.5 },
	{ "5.", 1, 5 },
	{ "400", 1, 400 },
	{ "1.7976931348623157e308", 1, DBL_MAX },
	{ "", 0, 0 },
	{ " 1", 0, 0 },
	{ "1 ", 0, 0 },
	{ "1.5x", 0, 0 },
	{ "1.5W", 0, 0 },
	{ "0x10", 0, 0 },
	{ "0X1P3", 0, 0 },
	{ "0x1p3", 0, 0 },
	{ "-0x1", 0, 0 },
	{ "inf", 0, 0 },
	{ "-inf", 0, 0 },
	{ "Infinity", 0, 0 },
	{ "nan", 0, 0 },
	{ "NAN", 0, 0 },
	{ "1e999", 0, 0 },
	{ "-1e999", 0, 0 },
	{ "1e", 0, 0 },
	{ "e3", 0, 0 },
	{ ".", 0, 0 },
	{ "1..2", 0, 0 },
	{ "1,5", 0, 0 },
	{ "-", 0, 0 },
};

START_TEST(test_str_to_double_table)
{
	double	v = 99.5;
	int	r = str_to_double(double_cases[_i].in, &v);

	if (double_cases[_i].ok) {
		ck_assert_msg(r == 0, "'%s' refused", double_cases[_i].in);
		ck_assert_double_eq(v, double_cases[_i].want);
	} else {
		ck_assert_msg(r == -1, "'%s' accepted as %g",
		    double_cases[_i].in, v);
		ck_assert_double_eq(v, 99.5);
	}
}
END_TEST

START_TEST(test_str_to_null)
{
	long		l = 1;
	unsigned long	u = 1;
	double		d = 1;

	ck_assert_int_eq(str_to_long(NULL, &l), -1);
	ck_assert_int_eq(str_to_ulong(NULL, &u), -1);
	ck_assert_int_eq(str_to_double(NULL, &d), -1);
	ck_assert_int_eq(l, 1);
	ck_assert_uint_eq(u, 1);
	ck_assert_double_eq(d, 1);
}
END_TEST

/* PCI ids as lspci and Redfish write them. */
START_TEST(test_str_hex)
{
	char	*s = NULL;

	ck_assert_int_eq(str_hex("10de"), 0x10de);
	ck_assert_int_eq(str_hex("0x10DE"), 0x10de);
	ck_assert_int_eq(str_hex("0X0"), 0);
	ck_assert_int_eq(str_hex(NULL), -1);
	ck_assert_int_eq(str_hex(""), -1);
	ck_assert_int_eq(str_hex("0x"), -1);
	ck_assert_int_eq(str_hex("-1"), -1);
	ck_assert_int_eq(str_hex(" 1"), -1);
	ck_assert_int_eq(str_hex("10de "), -1);
	ck_assert_int_eq(str_hex("ffffffffffffffffff"), -1);
	str_set(&s, "a");
	ck_assert_str_eq(s, "a");
	str_set(&s, s);	/* its own copy: copied before it is freed */
	ck_assert_str_eq(s, "a");
	str_set(&s, NULL);
	ck_assert_ptr_null(s);
}
END_TEST

/* Host names (RFC 1123 section 2.1, RFC 952 labels). */

static const struct {
	const char	*in;
	int		 want;
} hostname_cases[] = {
	{ "a", 1 },
	{ "gpu01", 1 },
	{ "head-01", 1 },
	{ "GPU01", 1 },
	{ "1host", 1 },		/* RFC 1123 allows a leading digit */
	{ "0", 1 },
	{ "a.b.c", 1 },
	{ "pod1.example.internal", 1 },
	{ "xn--bcher-kva.example", 1 },
	{ "a--b", 1 },
	{ "192.0.2.1", 1 },
	{ "", 0 },
	{ "-a", 0 },
	{ "a-", 0 },
	{ "a.-b", 0 },
	{ "a-.b", 0 },
	{ "a..b", 0 },
	{ ".a", 0 },
	{ "a.", 0 },
	{ ".", 0 },
	{ "a_b", 0 },
	{ "a b", 0 },
	{ "a/b", 0 },
	{ "a:22", 0 },
	{ "a@b", 0 },
	{ "a\nb", 0 },
	{ "$(x)", 0 },
	{ "b\xc3\xbc" "cher", 0 },
	{ "gpu[01-04]", 0 },
};

START_TEST(test_str_is_hostname_table)
{
	ck_assert_msg(str_is_hostname(hostname_cases[_i].in) ==
	    hostname_cases[_i].want, "'%s': want %d", hostname_cases[_i].in,
	    hostname_cases[_i].want);
}
END_TEST

/* Length limits: 63 per label, 253 in all. */
START_TEST(test_str_is_hostname_lengths)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	ck_assert_int_eq(str_is_hostname(NULL), 0);
	for (i = 0; i < 63; i++)
		buf_addch(&b, 'a');
	ck_assert_int_eq(str_is_hostname(b.buf), 1);
	buf_addch(&b, 'a');
	ck_assert_int_eq(str_is_hostname(b.buf), 0);
	/* 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253. */
	buf_reset(&b);
	for (i = 0; i < 3; i++) {
		size_t	k;

		for (k = 0; k < 63; k++)
			buf_addch(&b, 'b');
		buf_addch(&b, '.');
	}
	for (i = 0; i < 61; i++)
		buf_addch(&b, 'c');
	ck_assert_uint_eq(b.len, 253);
	ck_assert_int_eq(str_is_hostname(b.buf), 1);
	buf_addch(&b, 'c');
	ck_assert_int_eq(str_is_hostname(b.buf), 0);
	/* A 64-character label inside a name. */
	buf_reset(&b);
	buf_adds(&b, "x.");
	for (i = 0; i < 64; i++)
		buf_addch(&b, 'd');
	buf_adds(&b, ".y");
	ck_assert_int_eq(str_is_hostname(b.buf), 0);
	buf_release(&b);
}
END_TEST

/* Safe words. */

static const struct {
	const char	*in;
	int		 want;
} safe_cases[] = {
	{ "abc", 1 },
	{ "A1", 1 },
	{ "a.b_c+d-e", 1 },
	{ "g++", 1 },
	{ "12", 1 },
	{ "-x", 1 },		/* callers that care refuse a leading '-' */
	{ "..", 1 },
	{ "", 0 },
	{ "a b", 0 },
	{ "a/b", 0 },
	{ "a;b", 0 },
	{ "a$b", 0 },
	{ "a'b", 0 },
	{ "a\"b", 0 },
	{ "a`b", 0 },
	{ "a\\b", 0 },
	{ "a\nb", 0 },
	{ "a*", 0 },
	{ "~root", 0 },
	{ "a=b", 0 },
	{ "caf\xc3\xa9", 0 },
	{ "\x7f", 0 },
};

START_TEST(test_str_safe_word_table)
{
	ck_assert_msg(str_is_safe_word(safe_cases[_i].in) ==
	    safe_cases[_i].want,
	    "'%s': want %d", safe_cases[_i].in, safe_cases[_i].want);
}
END_TEST

START_TEST(test_str_safe_word_null)
{
	ck_assert_int_eq(str_is_safe_word(NULL), 0);
}
END_TEST

static const struct {
	const char	*s, *prefix;
	int		 want;
} starts_cases[] = {
	{ "127.0.0.1", "127.", 1 },
	{ "127", "127.", 0 },
	{ "abc", "", 1 },
	{ "", "", 1 },
	{ "", "a", 0 },
	{ "abc", "abc", 1 },
	{ "abc", "abcd", 0 },
	{ "Abc", "a", 0 },
};

START_TEST(test_str_starts_table)
{
	ck_assert_int_eq(str_starts(starts_cases[_i].s,
	    starts_cases[_i].prefix), starts_cases[_i].want);
}
END_TEST

/* What each kind of plan value may hold (the string types of schema.h). */
static const struct {
	int		(*fn)(const char *);
	const char	*name;
	const char	*in;
	int		 want;
} type_cases[] = {
#define T(f, in, want) { f, #f, in, want }
	T(str_is_ipv4, "192.0.2.10", 1),
	T(str_is_ipv4, "0.0.0.0", 1),
	T(str_is_ipv4, "255.255.255.255", 1),
	T(str_is_ipv4, "256.0.0.1", 0),
	T(str_is_ipv4, "01.2.3.4", 0),
	T(str_is_ipv4, "1.2.3", 0),
	T(str_is_ipv4, "1.2.3.4.5", 0),
	T(str_is_ipv4, "1.2.3.4 ", 0),
	T(str_is_ipv4, "+1.2.3.4", 0),
	T(str_is_cidr4, "10.244.0.0/16", 1),
	T(str_is_cidr4, "0.0.0.0/0", 1),
	T(str_is_cidr4, "192.0.2.0/32", 1),
	T(str_is_cidr4, "10.244.0.0/33", 0),
	T(str_is_cidr4, "10.244.0.0/016", 0),
	T(str_is_cidr4, "10.244.0.0", 0),
	T(str_is_cidr4, "10.244.0.0/16|;e id;#", 0),
	T(str_is_cidr4, "10.244.0.0/16\n", 0),
	T(str_is_cidr4, "fd00::/8", 0),
	T(str_is_mac, "0c:c4:7a:00:00:10", 1),
	T(str_is_mac, "0C-C4-7A-00-00-10", 1),
	T(str_is_mac, "0c:c4-7a:00:00:10", 0),
	T(str_is_mac, "0c:c4:7a:00:00", 0),
	T(str_is_mac, "0c:c4:7a:00:00:1g", 0),
	T(str_is_version, "22.04", 1),
	T(str_is_version, "550", 1),
	T(str_is_version, "1.30.2", 1),
	T(str_is_version, "v1.30", 0),
	T(str_is_version, "1..2", 0),
	T(str_is_version, "1.", 0),
	T(str_is_version, ".1", 0),
	T(str_is_version, "12;id", 0),
	T(str_is_user, "root", 1),
	T(str_is_user, "_svc.deploy-1", 1),
	T(str_is_user, "-oProxyCommand", 0),
	T(str_is_user, "1abc", 0),
	T(str_is_user, "a b", 0),
	T(str_is_user, "a@b", 0),
	T(str_is_envvar, "BMC_PASSWORD", 1),
	T(str_is_envvar, "_x1", 1),
	T(str_is_envvar, "1X", 0),
	T(str_is_envvar, "A-B", 0),
	T(str_is_envvar, "A$(id)", 0),
	T(str_is_hostport, "mirror.example:5000", 1),
	T(str_is_hostport, "docker.io", 1),
	T(str_is_hostport, "10.0.0.5:443", 1),
	T(str_is_hostport, "mirror.example:0", 0),
	T(str_is_hostport, "mirror.example:65536", 0),
	T(str_is_hostport, "mirror.example:", 0),
	T(str_is_hostport, ":5000", 0),
	T(str_is_hostport, "a;b:1", 0),
	T(str_is_jump, "bastion", 1),
	T(str_is_jump, "admin@bastion.example:2222", 1),
	T(str_is_jump, "@bastion", 0),
	T(str_is_jump, "-oProxyCommand=x", 0),
	T(str_is_jump, "a b@c", 0),
	T(str_is_url, "https://mirror.example:5000", 1),
	T(str_is_url, "https://mirror.example/v2/a_b-c~d%20e", 1),
	T(str_is_url, "http://10.0.0.5:5000/", 1),
	T(str_is_url, "ftp://mirror.example", 0),
	T(str_is_url, "https://", 0),
	T(str_is_url, "https://user:pw@mirror.example", 0),
	T(str_is_url, "https://mirror.example/?q=1", 0),
	T(str_is_url, "https://mirror.example/$(id)", 0),
	T(str_is_url, "https://mirror.example/a\"b", 0),
	T(str_is_url, "https://mirror.example/a b", 0),
	T(str_is_ldap_uri, "ldaps://ldap.example.com", 1),
	T(str_is_ldap_uri, "ldap://10.0.0.5:389/", 1),
	T(str_is_ldap_uri, "ldaps://ldap.example.com:636", 1),
	T(str_is_ldap_uri, "ldapi:///", 0),
	T(str_is_ldap_uri, "ldaps://", 0),
	T(str_is_ldap_uri, "https://ldap.example.com", 0),
	T(str_is_ldap_uri, "ldap://ldap.example.com/dc=x??sub", 0),
	T(str_is_ldap_uri, "ldap://a b", 0),
	T(str_is_ldap_uri, "ldap://a,ldap://b", 0),
	T(str_is_ldap_dn, "dc=example,dc=com", 1),
	T(str_is_ldap_dn, "cn=svc provision,ou=Service Accounts,dc=example,dc=com", 1),
	T(str_is_ldap_dn, "uid=alice+cn=Alice,dc=x", 1),
	T(str_is_ldap_dn, "dc=example,", 0),
	T(str_is_ldap_dn, "dc=", 0),
	T(str_is_ldap_dn, "=x", 0),
	T(str_is_ldap_dn, "dc= x", 0),
	T(str_is_ldap_dn, "dc=x ", 0),
	T(str_is_ldap_dn, "example.com", 0),
	T(str_is_ldap_dn, "1dc=x", 0),
	T(str_is_ldap_dn, "cn=a\\,b,dc=x", 0),
	T(str_is_ldap_dn, "cn=$(id),dc=x", 0),
	T(str_is_ldap_dn, "cn=a\nb", 0),
	T(str_is_pkg, "python3", 1),
	T(str_is_pkg, "libfoo1.2+dfsg-3", 1),
	T(str_is_pkg, "-x", 0),
	T(str_is_pkg, ".hidden", 0),
	T(str_is_pkg, "a;b", 0),
	T(str_is_mig_profile, "1g.10gb", 1),
	T(str_is_mig_profile, "1g.10gb+me", 1),
	T(str_is_mig_profile, "19", 1),
	T(str_is_mig_profile, "g.10gb", 0),
	T(str_is_mig_profile, "1g,2g", 0),
	T(str_is_pciid, "10de:20b0", 1),
	T(str_is_pciid, "10DE:20B0", 1),
	T(str_is_pciid, "10de:20b", 0),
	T(str_is_pciid, "10de-20b0", 0),
	T(str_is_slurm_time, "30", 1),
	T(str_is_slurm_time, "2-00:00:00", 1),
	T(str_is_slurm_time, "UNLIMITED", 1),
	T(str_is_slurm_time, "1:2:3:4", 0),
	T(str_is_slurm_time, "2 days", 0),
	T(str_is_redundancy, "N+1", 1),
	T(str_is_redundancy, "N+N", 1),
	T(str_is_redundancy, "N", 1),
	T(str_is_redundancy, "2+2", 1),
	T(str_is_redundancy, "0+2", 0),
	T(str_is_redundancy, "X+1", 0),
	T(str_is_redundancy, "2+2x", 0),
#undef T
};

START_TEST(test_str_type_table)
{
	ck_assert_msg(type_cases[_i].fn(type_cases[_i].in) ==
	    type_cases[_i].want, "%s('%s'): want %d", type_cases[_i].name,
	    type_cases[_i].in, type_cases[_i].want);
	ck_assert_int_eq(type_cases[_i].fn(NULL), 0);
}
END_TEST

/* Text: one line, nothing a terminal or a config would read as control. */
START_TEST(test_str_is_text)
{
	ck_assert_int_eq(str_is_text("NVIDIA A100 80GB PCIe (\"SXM\")", 256), 1);
	ck_assert_int_eq(str_is_text("b\xc3\xbc" "cher", 256), 1);
	ck_assert_int_eq(str_is_text("a\nb", 256), 0);
	ck_assert_int_eq(str_is_text("a\rb", 256), 0);
	ck_assert_int_eq(str_is_text("a\tb", 256), 0);
	ck_assert_int_eq(str_is_text("a\033[2Jb", 256), 0);
	ck_assert_int_eq(str_is_text("a\177", 256), 0);
	ck_assert_int_eq(str_is_text("", 256), 0);
	ck_assert_int_eq(str_is_text("abcd", 3), 0);
	ck_assert_int_eq(str_is_text(NULL, 3), 0);
}
END_TEST

static Suite *
str_suite(void)
{
	Suite	*s = suite_create("str");
	TCase	*tc;

	tc = tcase_create("distance");
	tcase_add_loop_test(tc, test_str_distance_table, 0,
	    (int)ARRAY_SIZE(distance_cases));
	tcase_add_test(tc, test_str_distance_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("suggest");
	tcase_add_loop_test(tc, test_str_suggest_table, 0,
	    (int)ARRAY_SIZE(suggest_cases));
	tcase_add_test(tc, test_str_suggest_empty);
	suite_add_tcase(s, tc);

	tc = tcase_create("numbers");
	tcase_add_loop_test(tc, test_str_to_long_table, 0,
	    (int)ARRAY_SIZE(long_cases));
	tcase_add_loop_test(tc, test_str_to_ulong_table, 0,
	    (int)ARRAY_SIZE(ulong_cases));
	tcase_add_loop_test(tc, test_str_to_double_table, 0,
	    (int)ARRAY_SIZE(double_cases));
	tcase_add_test(tc, test_str_to_null);
	tcase_add_test(tc, test_str_hex);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostname");
	tcase_add_loop_test(tc, test_str_is_hostname_table, 0,
	    (int)ARRAY_SIZE(hostname_cases));
	tcase_add_test(tc, test_str_is_hostname_lengths);
	suite_add_tcase(s, tc);

	tc = tcase_create("words");
	tcase_add_loop_test(tc, test_str_safe_word_table, 0,
	    (int)ARRAY_SIZE(safe_cases));
	tcase_add_test(tc, test_str_safe_word_null);
	tcase_add_loop_test(tc, test_str_starts_table, 0,
	    (int)ARRAY_SIZE(starts_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("types");
	tcase_add_loop_test(tc, test_str_type_table, 0,
	    (int)ARRAY_SIZE(type_cases));
	tcase_add_test(tc, test_str_is_text);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(str_suite)
