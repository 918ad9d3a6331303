"""Request bodies, checked at the edge with marshmallow (the shapes openapi.yaml publishes)."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import request
from marshmallow import Schema, ValidationError, fields, validate, validates_schema
from werkzeug.exceptions import RequestEntityTooLarge

from service.i18n import phrase
from service.play.errors import BadRequest
from service.play.limits import parse_json
from service.play.seats.people import MAX_EMAIL, email_problem


def _email(value: str) -> None:
    """email-validator, not marshmallow's own pattern (see :func:`service.play.seats.people.normal_email`)."""
    problem = email_problem(value)
    if problem is not None:
        raise ValidationError(problem)


def _optional_email(value: str) -> None:
    """An email address, or "" for none given."""
    if value:
        _email(value)


def _email_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=[validate.Length(max=MAX_EMAIL), _email], **kwargs)


class SeatSpec(Schema):
    invite = _email_field(metadata={"description": "email of the person invited to this seat"})
    bot = fields.String(validate=validate.Length(min=1, max=40))
    # the creator takes this seat (claims it with the token the answer returns): no invitation
    # mail goes to it (issue 27: nobody is invited to their own seat)
    mine = fields.Boolean(truthy={True}, falsy={False}, metadata={"description": "the creator takes this invited seat: no invitation is mailed"})

    @validates_schema
    def _one(self, data: dict[str, Any], **_: Any) -> None:
        if ("invite" in data) == ("bot" in data):
            raise ValidationError('a seat is either {"invite": email} or {"bot": kind}')
        if "mine" in data and "invite" not in data:
            raise ValidationError('"mine" goes with an invited seat: {"invite": email, "mine": true}')


class CreateMatch(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=40))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    seats = fields.List(fields.Nested(SeatSpec), required=True, validate=validate.Length(min=1, max=8))
    creator_name = fields.String(load_default="", validate=validate.Length(max=80))
    # Checked by the use case (service.proof.time_control / standing), whose refusals name the
    # offending field (400 bad-time-control / bad-timeout-policy): one rule, also for the CLI.
    time_control = fields.Raw(load_default=None, allow_none=True,
                              metadata={"description": "none, per-move or bank (docs/clock.md); absent: none"})
    timeout_policy = fields.Raw(load_default=None, allow_none=True,
                                metadata={"description": "stand-in, skip, forfeit or abort, or an object; "
                                                         "absent: stand-in"})
    edition = fields.String(load_default=None, allow_none=True, validate=validate.Length(min=1, max=64),
                            metadata={"description": "the data edition to play (docs/editions.md); absent: the "
                                                     "operator's default edition, else the shipped data"})


class Claim(Schema):
    token = fields.String(required=True, validate=validate.Length(min=1, max=200))
    public_key = fields.String(required=True, validate=validate.Length(min=40, max=60))
    name = fields.String(required=True, validate=validate.Length(min=1, max=80))
    email = fields.String(load_default="", validate=[validate.Length(max=MAX_EMAIL), _optional_email])
    nonce = fields.String(load_default="", validate=validate.Length(max=128))
    mail_delegation = fields.String(load_default="", validate=validate.Length(max=200),
                                    metadata={"description": "the key's signature over the seat's mail delegation body"})


class MailDelegation(Schema):
    signature = fields.String(required=True, validate=validate.Length(min=1, max=200))


class MailWithdrawal(Schema):
    withdrawal = fields.String(required=True, validate=validate.Length(min=1, max=200))


class AttachKey(Schema):
    token = fields.String(required=True, validate=validate.Length(min=1, max=200))
    public_key = fields.String(required=True, validate=validate.Length(min=40, max=60))
    from_ply = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=10**9))
    signature = fields.String(required=True, validate=validate.Length(min=1, max=200))


class SetNotices(Schema):
    email = fields.String(required=True, validate=validate.Length(min=1, max=MAX_EMAIL))
    # the values of service.storage.preferences.PREFERENCES (the API does not import storage here)
    notices = fields.String(required=True, validate=validate.OneOf(("every", "digest", "off"),
                                                                   error="notices is one of every, digest, off"))


class SetLanguage(Schema):
    email = fields.String(required=True, validate=validate.Length(min=1, max=MAX_EMAIL))
    # a code or a name service.i18n.parse_language knows ("hu", "magyar", "English")
    language = fields.String(required=True, validate=validate.Length(min=1, max=32))


class Move(Schema):
    envelope = fields.Dict(required=True)
    signature = fields.String(required=True, validate=validate.Length(min=1, max=200))


def _refuse_a_cut_stream(read: int) -> None:
    """A chunked body (no Content-Length) is read through werkzeug's LimitedStream, which stops
    quietly at ``MAX_CONTENT_LENGTH``: an oversized body would come back cut short and be refused
    as malformed JSON. One more byte from the server's own (dechunked) input tells the two apart,
    so an oversized chunked body gets the same 413 as one with a Content-Length."""
    limit = request.max_content_length
    if limit is not None and read >= limit and request.environ["wsgi.input"].read(1):
        raise RequestEntityTooLarge()


def raw_body() -> bytes:
    """The request body's bytes, whole or refused: more than ``MAX_CONTENT_LENGTH`` is 413,
    chunked bodies included (never a body cut short). Both the body parser and the signature
    check (which signs these bytes) read the body through here."""
    raw = request.get_data(cache=True)
    if request.content_length is None and "wsgi.input_terminated" in request.environ:
        _refuse_a_cut_stream(len(raw))
    return raw


@cache
def _instance(schema: type[Schema]) -> Schema:
    """One instance per schema class: building a Schema copies its declared fields, which costs
    more than loading a small body; ``load`` keeps no state on the instance."""
    return schema()


def body(schema: type[Schema]) -> dict[str, Any]:
    """The JSON body loaded through ``schema``; malformed JSON or fields raise 400.

    The one place the API decodes a request body, so its bounds hold on every JSON route: more
    than ``MAX_CONTENT_LENGTH`` bytes is 413 (werkzeug raises it while reading, chunked bodies
    included), nesting deeper than :data:`service.play.limits.MAX_JSON_DEPTH` is 400 ``too-deep``,
    NUL or lone surrogates are 400 ``bad-string`` (:func:`service.play.limits.parse_json`). The
    content type is not insisted on (clients that forget it still get their JSON read)."""
    raw = raw_body()
    data = parse_json(raw) if raw.strip() else None
    if not isinstance(data, dict):
        raise BadRequest("malformed-json", phrase("the request body must be a JSON object"))
    loaded: dict[str, Any] = _instance(schema).load(data)
    return loaded


class AddWebhook(Schema):
    # a longer URL is refused by the use case, with a message that says so (bad-webhook-url)
    url = fields.String(required=True, validate=validate.Length(min=1, max=8192),
                        metadata={"description": "https URL the events are POSTed to"})
    description = fields.String(load_default="", validate=validate.Length(max=200))
