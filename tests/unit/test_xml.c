/*
 * test_xml.c: unit tests for lib/xml.c (nvidia-smi's XML).
 */
#include "compat.h"

#include <check.h>

#include "err.h"
#include "test.h"
#include "xml.h"

START_TEST(test_xml_tree)
{
	struct xml_node	*root = NULL;
	struct prov_err	 err = PROV_ERR_INIT;
	const char	*text =
	    "<?xml version=\"1.0\" ?>\n"
	    "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
	    "<nvidia_smi_log>\n"
	    "  <!-- a comment -->\n"
	    "  <driver_version> 550.54.15 </driver_version>\n"
	    "  <gpu id=\"00000000:3B:00.0\">\n"
	    "    <product_name>A &amp; B &#x41;&#233;</product_name>\n"
	    "    <pci><pci_bus_id><![CDATA[3B:00.0]]></pci_bus_id></pci>\n"
	    "    <empty/>\n"
	    "  </gpu>\n"
	    "</nvidia_smi_log>\n";

	ck_assert_ok(xml_parse(&root, "t", text, &err), &err);
	ck_assert_str_eq(root->name, "nvidia_smi_log");
	ck_assert_str_eq(xml_path(root, "driver_version"), "550.54.15");
	ck_assert_str_eq(xml_path(root, "gpu/product_name"), "A & B A\xc3\xa9");
	ck_assert_str_eq(xml_path(root, "gpu/pci/pci_bus_id"), "3B:00.0");
	ck_assert_str_eq(xml_path(root, "gpu/empty"), "");
	ck_assert_ptr_null(xml_path(root, "gpu/nothing"));
	ck_assert_str_eq(root->child->next->id, "00000000:3B:00.0");
	xml_free(root);
}
END_TEST

static const struct {
	const char	*text;
	const char	*msg;
} bad_cases[] = {
	{ "", "t: line 1: no root element" },
	{ "<a><b></a>", "t: line 1: mismatched end tag" },
	{ "<a>\n<b>", "t: line 2: unclosed element" },
	{ "<a>&nbsp;</a>", "t: line 1: unknown entity" },
	{ "<a>&#0;</a>", "t: line 1: bad character reference" },
	{ "<a></a><b/>", "t: line 1: content after the root element" },
	{ "<a x=1/>", "t: line 1: unquoted attribute value" },
	{ "<!DOCTYPE a [ <!ENTITY x \"y\"> ]><a/>",
	    "t: line 1: unsupported DOCTYPE" },
	{ "gpu,0", "t: line 1: no root element" },
};

START_TEST(test_xml_bad)
{
	struct xml_node	*root = NULL;
	struct prov_err	 err = PROV_ERR_INIT;

	ck_assert_int_eq(xml_parse(&root, "t", bad_cases[_i].text, &err), -1);
	ck_assert_ptr_null(root);
	ck_assert_int_eq(err.code, PROV_E_PARSE);
	ck_assert_str_eq(err.msg, bad_cases[_i].msg);
	prov_err_release(&err);
}
END_TEST

static Suite *
xml_suite(void)
{
	Suite	*s = suite_create("xml");
	TCase	*tc = tcase_create("parse");

	tcase_add_test(tc, test_xml_tree);
	tcase_add_loop_test(tc, test_xml_bad, 0, (int)ARRAY_SIZE(bad_cases));
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(xml_suite)
