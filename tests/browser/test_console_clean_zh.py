"""No studio page logs a console error in Chinese (issue 16 §6): tests/browser/console_crawl.py."""

from tests.browser.console_crawl import crawl_test, server  # noqa: F401  (the fixture it asks for)

test_no_studio_page_logs_a_console_error_in_chinese = crawl_test("zh-hans")
