"""Where summary jobs run: the shared runner and the in-process queue (library, one node)."""

from longtalk.jobs.local import LocalJobs
from longtalk.jobs.runner import JobOutcome, JobReporter, JobResult, JobRunner

__all__ = ["JobOutcome", "JobReporter", "JobResult", "JobRunner", "LocalJobs"]
