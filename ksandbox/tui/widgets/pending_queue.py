"""PendingQueue: pods waiting for a node, each with its one-line reason.

The reason is what the scheduler last wrote (the PodScheduled condition, e.g. ``0/5 nodes are
available: 1 node(s) had untolerated taint(s), …``), or why nothing was written yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.strip import Strip

from ..model import ClusterModel
from .line_list import LineList

if TYPE_CHECKING:
    from ...api.core import Pod
    from ...session import Session


def one_line(message: str) -> str:
    """The scheduler's message without its preemption tail (the queue has one line a pod)."""
    head, sep, _tail = message.partition(" preemption: ")
    return head.rstrip() if sep else message


def pending_reason(session: Session, pod: Pod) -> str:
    if pod.status.message:
        return one_line(pod.status.message)
    cond = pod.status.condition("PodScheduled")
    if cond is not None and cond.status == "False" and (cond.message or cond.reason):
        return one_line(cond.message or cond.reason)
    wanted = pod.spec.scheduler_name or "default-scheduler"
    if wanted != "default-scheduler":
        return f'waiting for scheduler "{wanted}"'
    return "waiting to be scheduled"


class PendingQueue(LineList):
    # The footer follows the focused pane: with the queue focused, enter and d mean its pod.
    BINDINGS = [Binding("enter", "screen.drill", "Explain pod"),
                Binding("d", "screen.describe", "Describe pod")]
    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {"pending-queue--name",
                                                      "pending-queue--reason",
                                                      "pending-queue--empty"}

    def __init__(self, session: Session, model: ClusterModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.model = model
        self.pods: list[Any] = []
        self._height = 0

    def reload(self) -> None:
        """Read the queue again; repaint only if it changed. A tick that writes pods calls this
        (at 30,000 pods with a Deployment churning, nearly every tick), and most leave the
        queue as it was: the same pod objects in the same order. A pod's line is drawn from
        the pod alone, and any write to a pod gives the model's queue its new object."""
        pods = list(self.model.pending_pods())
        old = self.pods
        if self._height and len(pods) == len(old) and all(a is b for a, b in zip(pods, old)):
            return
        key = self.selected_key
        self.pods = pods
        # Grow with the queue (up to the CSS max-height), so an empty queue costs 3 lines.
        # Only on a change: a new height re-lays out the whole screen.
        height = min(max(1, len(self.pods)), 6) + 2
        if self._height != height:
            self._height = height
            self.styles.height = height
        if key is not None:
            for i, p in enumerate(self.pods):
                if (p.metadata.namespace, p.metadata.name) == key:
                    self.set_reactive(PendingQueue.cursor, i)
                    break
        self.rows_changed()

    @property
    def selected_key(self) -> tuple[str, str] | None:
        if 0 <= self.cursor < len(self.pods):
            p = self.pods[self.cursor]
            return (p.metadata.namespace, p.metadata.name)
        return None

    def row_count(self) -> int:
        return len(self.pods)

    def render_line(self, y: int) -> Strip:
        if not self.pods and y == 0:
            width = self.scrollable_content_region.width
            t = Text("no pending pods", self.component_style("pending-queue--empty"))
            return self.text_strip(t, width)
        return super().render_line(y)

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        pod = self.pods[index]
        current = self.session.store.get("Pod", pod.metadata.name, pod.metadata.namespace)
        pod = current or pod
        return self.pieces_strip(
            [(f"{pod.metadata.namespace}/{pod.metadata.name} ",
              self.component_style("pending-queue--name")),
             (pending_reason(self.session, pod), self.component_style("pending-queue--reason"))],
            width, selected)
