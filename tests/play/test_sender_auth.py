"""Authentication-Results (RFC 8601) read for the From domain: only our authserv-id's, DMARC first,
then aligned DKIM (service.play.mail.sender_auth); and which A-R headers of a raw message count as
our MTA's (service.delivery.inbound.auth_headers, through the parser)."""

from __future__ import annotations

from service.delivery.inbound import parse
from service.play.mail.sender_auth import judge
from service.play.mail.sender_auth import parse as parse_ar

OURS = "mx.portolan.test"


def test_a_header_is_read_with_its_comments_quotes_and_properties() -> None:
    value = ('mx.portolan.test 1; (our MX) dkim=pass (2048-bit key) header.d=example.org header.s="sel; 1"; '
             'spf=pass smtp.mailfrom=ana@example.org; dmarc=pass (p=reject) header.from=example.org')
    parsed = parse_ar(value)
    assert parsed is not None and parsed.authserv_id == OURS
    methods = [(r.method, r.result) for r in parsed.results]
    assert methods == [("dkim", "pass"), ("spf", "pass"), ("dmarc", "pass")]
    assert parsed.results[0].properties["header.d"] == "example.org"
    assert parsed.results[0].properties["header.s"] == "sel; 1"
    nothing = parse_ar("mx.portolan.test; none")
    assert nothing is not None and nothing.results == ()
    assert parse_ar("  (only a comment) ") is None


def test_dmarc_pass_passes_and_dmarc_fail_refuses_even_with_a_dkim_pass() -> None:
    assert judge([f"{OURS}; dmarc=pass header.from=example.org"], OURS, "ana@example.org").passed
    failed = judge([f"{OURS}; dkim=pass header.d=example.org; dmarc=fail header.from=example.org"], OURS,
                   "ana@example.org")
    assert not failed.passed and failed.dmarc_fail and "fails DMARC" in failed.why


def test_without_dmarc_a_dkim_pass_must_be_aligned_with_the_from_domain() -> None:
    assert judge([f"{OURS}; dkim=pass header.d=example.org; dmarc=none"], OURS, "ana@example.org").passed
    assert judge([f"{OURS}; dkim=pass header.d=example.org"], OURS, "ana@mail.example.org").passed  # a parent signs
    assert judge([f"{OURS}; dkim=pass header.i=@example.org"], OURS, "ana@example.org").passed
    for other in ("evil.example", "ample.org", "mail.example.org"):  # another domain, a suffix, a child
        assert not judge([f"{OURS}; dkim=pass header.d={other}"], OURS, "ana@example.org").passed
    assert not judge([f"{OURS}; dkim=fail header.d=example.org"], OURS, "ana@example.org").passed
    assert not judge([f"{OURS}; spf=pass smtp.mailfrom=example.org"], OURS, "ana@example.org").passed


def test_a_forged_header_of_another_authserv_id_is_ignored() -> None:
    forged = ["evil.example; dmarc=pass header.from=example.org", "mx.portolan.test.evil; dkim=pass header.d=example.org"]
    verdict = judge(forged, OURS, "ana@example.org")
    assert not verdict.passed and "no Authentication-Results of mx.portolan.test" in verdict.why
    assert judge([*forged, f"{OURS.upper()}; dmarc=pass header.from=example.org"], OURS, "ana@example.org").passed


def test_no_result_at_all_is_no_proof() -> None:
    assert not judge([], OURS, "ana@example.org").passed
    assert not judge([f"{OURS}; none"], OURS, "ana@example.org").passed
    assert not judge([f"{OURS}; dmarc=pass header.from=example.org"], OURS, "").passed


def test_only_the_top_block_of_a_raw_message_counts_as_our_mta() -> None:
    raw = (f"Received: from mail.evil.example by {OURS} (Postfix) with ESMTPS id 1\r\n"
           f"Authentication-Results: {OURS}; dkim=none; dmarc=none\r\n"
           "Received: from [10.0.0.1] by mail.evil.example with ESMTPSA id 2\r\n"
           f"Authentication-Results: {OURS}; dkim=pass header.d=example.org\r\n"
           "From: Ana <ana@example.org>\r\nTo: turns@portolan.test\r\nSubject: Re: x\r\n\r\n1\r\n").encode()
    mail = parse(raw)
    assert mail.auth_results == (f"{OURS}; dkim=none; dmarc=none",)
    assert not judge(mail.auth_results, OURS, mail.sender).passed
    # an A-R above our Received (a milter that inserts at the top) counts too; after the first
    # header that no MTA adds (the sender's own), nothing counts
    top = (f"Authentication-Results: {OURS}; dmarc=pass header.from=example.org\r\n"
           f"Received: from mail.example.org by {OURS}\r\n"
           "From: Ana <ana@example.org>\r\n"
           f"Authentication-Results: {OURS}; dmarc=fail header.from=example.org\r\n\r\n1\r\n").encode()
    assert parse(top).auth_results == (f"{OURS}; dmarc=pass header.from=example.org",)
