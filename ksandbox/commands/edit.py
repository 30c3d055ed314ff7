"""``kubectl edit TYPE NAME`` (kubectl ``pkg/cmd/util/editor/editoptions.go``).

kubectl writes the object (``get -o yaml``, under a comment header) to a file, opens an
editor, and when the editor closes compares the text without comment lines: unchanged →
``Edit cancelled, no changes made.``; empty → ``Edit cancelled, saved file was empty.``;
otherwise it sends the difference as a patch (written here through ``patch.write_patched``,
the one PATCH path) and prints ``deployment.apps/web edited`` (``skipped`` when only the
layout changed). A file that does not parse, changes apiVersion/kind/name, or that the API
server refuses as invalid is *reopened* with the reasons in its header, and quitting the
editor then ends with ``error: Edit cancelled, no valid changes were saved.``

ksandbox has no external editor. The edited object comes from

* headless (scripts, recordings, ``sim``): the step's ``stdin:`` is the file as the user saved
  it. A refused edit prints the header kubectl would reopen the file with (``# deployments.apps
  "web" was not valid:`` / ``# * spec.replicas: ...``) and the final ``error: Edit cancelled,
  no valid changes were saved.``; nothing is written;
* the TUI (``:edit TYPE NAME``): an in-app editor, which submits this same command with the
  saved text as stdin (``rebase``) and keeps itself open with the reasons on a refusal.

``--save-config`` puts the edited object's own JSON (every key sorted, as kubectl holds the
edited file: unstructured) in the last-applied annotation before the patch is made, as
editoptions.go's visitAnnotation does; an unchanged file is still "Edit cancelled".

Not here: ``-f``, ``--output-patch``, ``--subresource``, several objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ..api.errors import ApiError, CommandError, KsandboxError, ValidationError
from ..api.kinds import BY_KIND
from ..api.safeload import load_yaml_documents
from ..views.serialize import dump_json, dump_yaml, to_manifest
from .apply import SAVE_CONFIG
from .common import check_output, get_object, printed
from .parse import NAMESPACE, OUTPUT, namespace_of, parse_flags, parse_targets
from .patch import merge_patch, write_patched
from .save_config import with_edited_annotation

if TYPE_CHECKING:
    from ..session import Session

HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this "
          "file will be\n"
          "# reopened with the relevant failures.\n"
          "#\n")
UNCHANGED = "Edit cancelled, no changes made."
EMPTY = "Edit cancelled, saved file was empty."
NO_VALID = "Edit cancelled, no valid changes were saved."


@attrs.frozen
class EditCommand:
    kind: str
    name: str
    namespace: str = "default"
    output: str = ""          # the editing format: yaml (the default) or json
    save_config: bool = False


@attrs.frozen
class Reason:
    """One entry of the reopened file's header: a head line and its causes."""
    head: str
    causes: tuple[str, ...] = ()

    def header(self) -> str:
        text = f"# {self.head}:\n" if self.causes else f"# {self.head}\n"
        return text + "".join(f"# * {c}\n" for c in self.causes) + "#\n"


class EditRefused(CommandError):
    """An edit kubectl would reopen: headless, the reopened header then the final error."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(NO_VALID)
        self.reason = reason
        self.preamble = reason.header()


def parse(tokens: list[str]) -> EditCommand:
    a = parse_flags("edit", tokens, (NAMESPACE, OUTPUT, SAVE_CONFIG))
    check_output("edit", a["output"], ("", "yaml", "json"))
    targets = parse_targets("edit", a.positionals)
    if not targets:
        raise CommandError("You must provide one or more resources by argument or filename.",
                           hint="See 'kubectl edit -h' for help and examples")
    if len(targets) != 1 or len(targets[0].names) != 1:
        raise CommandError("ksandbox edits one object at a time: TYPE NAME or TYPE/NAME",
                           hint="See 'kubectl edit -h' for help and examples")
    return EditCommand(targets[0].info.kind, targets[0].names[0], namespace_of(a),
                       a["output"], a["save-config"])


def document(obj: Any, output: str = "") -> str:
    """The object as ``kubectl get -o yaml|json`` prints it (what the editor starts from)."""
    data = to_manifest(obj)
    return dump_json(data) if output == "json" else dump_yaml(data)


def editor_text(session: Session, cmd: EditCommand) -> str:
    """The file kubectl opens: the header, then the object."""
    info = BY_KIND[cmd.kind]
    return HEADER + document(get_object(session.store, info, cmd.name, cmd.namespace),
                             cmd.output)


def strip_comments(text: str) -> str:
    """kubectl's StripComments: drop the lines whose first non-blank character is ``#``."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.lstrip().startswith("#"))


def merge_diff(before: Any, after: Any) -> Any:
    """The JSON merge patch (RFC 7386) that turns ``before`` into ``after``."""
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    out: dict = {k: None for k in before if k not in after}
    for key, value in after.items():
        if key not in before:
            out[key] = value
        elif before[key] != value:
            old = before[key]
            out[key] = merge_diff(old, value) if isinstance(old, dict) and \
                isinstance(value, dict) else value
    return out


def _parsed(text: str) -> Any:
    try:
        docs = load_yaml_documents(text, "edited file")
    except KsandboxError as err:
        detail = str(err).split("): ", 1)[-1]
        raise EditRefused(Reason(f"The edited file had a syntax error: {detail}")) from None
    if len(docs) != 1 or not isinstance(docs[0][1], dict):
        raise EditRefused(Reason("The edited file had a syntax error: expected one object"))
    return docs[0][1]


def rebase(session: Session, cmd: EditCommand, started: str, edited: str) -> str:
    """What the TUI submits: the user's changes (from the text the editor ``started`` with to
    ``edited``) laid onto the object as it is now, as kubectl's patch lands on the live
    object. Recordings keep this text, so a replay makes the same write."""
    info = BY_KIND[cmd.kind]
    current = session.store.get(cmd.kind, cmd.name, cmd.namespace if info.namespaced else "")
    if current is None:
        return edited
    now = document(current, cmd.output)
    if strip_comments(edited) == strip_comments(started):
        return now
    try:
        before, after = _parsed(started), _parsed(edited)
    except EditRefused:
        return edited
    data = merge_patch(to_manifest(current), merge_diff(before, after))
    return dump_json(data) if cmd.output == "json" else dump_yaml(data)


def run(session: Session, cmd: EditCommand, stdin: str | None) -> str:
    info = BY_KIND[cmd.kind]
    current = get_object(session.store, info, cmd.name, cmd.namespace)
    if stdin is None:
        raise CommandError("ksandbox has no editor to open: give the edited object as the "
                           "command's standard input (a script step's stdin:), or use "
                           "\":edit\" in the TUI")
    original = document(current, cmd.output)
    if strip_comments(stdin) == strip_comments(original):
        return UNCHANGED + "\n"
    if not strip_comments(stdin).strip():
        return EMPTY + "\n"
    before, after = _parsed(original), _parsed(stdin)
    meta_before, meta_after = before.get("metadata") or {}, after.get("metadata")
    if not isinstance(meta_after, dict) or any(
            before.get(k) != after.get(k) for k in ("apiVersion", "kind")) \
            or meta_before.get("name") != meta_after.get("name"):
        raise EditRefused(Reason("At least one of apiVersion, kind and name was changed"))
    if meta_before.get("namespace") != meta_after.get("namespace"):
        raise EditRefused(Reason("the namespace of the provided object does not match the "
                                 "namespace sent on the request"))
    if cmd.save_config:
        after = with_edited_annotation(after)
    patch = merge_diff(before, after)
    if not patch:
        return printed(current, "skipped")
    try:
        # (the patch carries the file's resourceVersion only when it is not the stored one:
        # the API server's precondition fails then, patch.decode_patched; a file without
        # one, a script's hand-written object, updates unconditionally)
        _, written = write_patched(session, info, cmd.name, cmd.namespace,
                                   lambda data: merge_patch(data, patch))
    except ValidationError as err:
        raise EditRefused(Reason(f'{info.display_resource} "{cmd.name}" was not valid',
                                 tuple(str(e) for e in err.errors))) from None
    except ApiError as err:
        raise CommandError(f'{info.display_resource} "{cmd.name}" could not be patched: '
                           f"{err.message}") from None
    if written is None:
        return printed(current, "skipped")
    return printed(written, "edited")
