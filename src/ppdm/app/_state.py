"""A browser session's state shared by the page modules, and its background jobs."""

from __future__ import annotations

from dataclasses import dataclass, field

from shiny import reactive

from ..exceptions import ParameterError
from ._common import READ_ERRORS, USER_ERRORS, Workspace, message, page_text
from ._jobs import Job, start_job

__all__ = ["State", "JobSlot", "poll_slots", "USER_ERRORS", "READ_ERRORS"]

POLL_SECONDS = 0.4


class JobSlot:
    """One kind of background job of a session: the job, its status line, its result."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.job: Job | None = None
        self.status = reactive.value("")
        self.result = reactive.value(None)
        self.tick = reactive.value(0)  # a start wakes its poll

    def running(self) -> bool:
        return self.job is not None and self.job.running()

    def pending(self) -> bool:
        """A job was started and its outcome is not collected yet (by :meth:`poll`)."""
        return self.job is not None

    def start(self, workspace: Workspace, function: str, **kwargs) -> None:
        if self.running():
            raise ParameterError(f"the {self.kind} is already running: wait or cancel it")
        self.result.set(None)
        self.job = start_job(self.kind, workspace.path, function, **kwargs)
        self.status.set(f"{self.kind}: starting...")
        with reactive.isolate():
            self.tick.set(self.tick.get() + 1)

    def cancel(self) -> None:
        if self.running():
            self.job.cancel()
            self.status.set(f"{self.kind} cancelled")

    def follow(self, cancel, note, reset_on) -> None:
        """Poll the job while pending, cancel it on ``cancel``, drop its result on ``reset_on``."""

        @reactive.effect
        @reactive.event(cancel)
        def _cancel():
            self.cancel()

        @reactive.effect
        @reactive.event(reset_on)
        def _reset():
            self.result.set(None)

        @reactive.effect
        def _poll():
            self.tick.get()
            with reactive.isolate():
                errors, busy = poll_slots([self])
            for _, err in errors:
                note.say("error", err)
            if busy:
                reactive.invalidate_later(POLL_SECONDS)

    def poll(self) -> str | None:
        """Update the status; return an error line when the job just failed."""
        job = self.job
        if job is None:
            return None
        if job.running():
            done, total = job.progress()
            self.status.set(
                f"{self.kind} running: {done} of {total} steps done"
                if total
                else f"{self.kind} running..."
            )
            return None
        self.job = None
        result, err = job.outcome()
        if err is not None:
            self.status.set(page_text(err))
            return None if job.cancelled else message(ValueError(err), self.kind)
        self.status.set(f"{self.kind} finished")
        self.result.set(result)
        return None


def poll_slots(slots) -> tuple[list[tuple[str, str]], bool]:
    """Poll every slot: the ``(kind, error line)`` of jobs that just failed, and whether a
    job is still pending (not running: one ending between the two checks is collected).
    """
    slots, errors = list(slots), []
    for slot in slots:
        err = slot.poll()
        if err:
            errors.append((slot.kind, err))
    return errors, any(slot.pending() for slot in slots)


def _value(default=None):
    return field(default_factory=lambda: reactive.value(default))


@dataclass
class State:
    """What the modules of one session share (made inside the session: reactive values).

    ``owner_msg`` / ``miner_msg``: ``(kind, text)`` at the top of each page; ``frame``,
    ``data_name``: the owner's table; ``class_column`` ("" for none) and ``keys``: the
    data page's choices; ``release_dir``: the release made; ``recommendation``: the
    advisor's, to fill the attribute controls; ``slots``: the background jobs.
    """

    workspace: Workspace = field(default_factory=Workspace)
    owner_msg: reactive.Value = _value()
    miner_msg: reactive.Value = _value()
    frame: reactive.Value = _value()
    data_name: reactive.Value = _value("")
    class_column: reactive.Value = _value("")
    keys: reactive.Value = _value(())
    release_dir: reactive.Value = _value()
    recommendation: reactive.Value = _value()
    slots: dict[str, JobSlot] = field(
        default_factory=lambda: {k: JobSlot(k) for k in ("advisor", "audit", "mining")}
    )

    def end(self) -> None:
        """Stop the session's jobs and remove its workspace."""
        for slot in self.slots.values():
            if slot.job is not None:
                slot.job.cancel()
        self.workspace.remove()
