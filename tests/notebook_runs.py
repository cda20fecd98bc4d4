"""Running a notebook as Run All does, for the tests of the lessons: every cell, errors kept
as outputs, and Ctrl-C ending the kernel and the whole test run."""

import threading


def run_all(nb, folder):
    """Run every cell of ``nb`` (errors kept as outputs), the way *Run All* does.

    The notebook runs in a worker thread, so that Ctrl-C reaches this thread as
    a plain KeyboardInterrupt: the kernel is killed and the interrupt goes on
    to stop the whole test run (inside nbclient's event loop it would only
    fail this one test, and the suite would run on).
    """
    from nbclient import NotebookClient
    from traitlets.config import Config

    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        config=Config({"KernelManager": {"transport_encryption": "auto"}}),
        resources={"metadata": {"path": str(folder)}},
    )
    failure = []

    def work():
        try:
            client.execute()
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=work, name="run-notebook", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        manager = getattr(client, "km", None)
        process = getattr(getattr(manager, "provisioner", None), "process", None)
        if process is not None:
            process.kill()
        worker.join(60)  # nbclient sees the kernel gone, and ends
        if not worker.is_alive():
            # The kernel is dead and nbclient is done with it. Its exit-time clean-up, left
            # registered when the interrupt cut the run short, would tear down pyzmq's context
            # a second time as Python exits, which can hang the exit or abort it in libzmq
            # (seen once in the full tier: the run never ended after its KeyboardInterrupt).
            import atexit

            atexit.unregister(client._cleanup_kernel)
        raise
    if failure:
        raise failure[0]
    return nb
