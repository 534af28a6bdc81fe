"""What each rank runs first under the launcher: torchrun's environment variables from MPI's
(hydra sets PMI_RANK, PMI_SIZE, MPI_LOCALRANKID), then the script as `python script.py` would."""
import os
import runpy
import sys


def _stop_every_rank(kind, value, tb):
    """An error before init_process_group: MPI has not started on this rank, and mpiexec would
    let the others wait for it forever. Start MPI, then leave badly: mpiexec stops them all."""
    while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__) \
            or tb is not None and tb.tb_frame.f_code.co_filename.startswith("<frozen"):
        tb = tb.tb_next                           # the script's frames, not the launcher's
    sys.__excepthook__(kind, value.with_traceback(tb), tb)
    sys.stderr.write(f"labkit.distributed.run: rank {os.environ.get('RANK')} failed with the "
                     "error above; stopping every rank.\n")
    sys.stdout.flush()
    sys.stderr.flush()
    if "mpi4py.MPI" not in sys.modules:
        from mpi4py import MPI  # noqa: F401  (MPI_Init: mpiexec now watches this rank)
    os._exit(1)


def main():
    sys.excepthook = _stop_every_rank
    env = os.environ
    rank, size = env.get("PMI_RANK", "0"), env.get("PMI_SIZE", "1")
    local = env.get("MPI_LOCALRANKID", rank)
    env.update(RANK=rank, WORLD_SIZE=size, LOCAL_RANK=local, GROUP_RANK="0",
               LOCAL_WORLD_SIZE=env.get("MPI_LOCALNRANKS",
                                        env.get("LABKIT_LOCAL_WORLD_SIZE", size)))
    args = sys.argv[1:]
    if args[0] == "--exec":                      # --no-python: a program, not a script
        os.execvp(args[1], args[1:])
    if args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return
    sys.argv = args
    sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
    runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
