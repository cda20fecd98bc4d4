"""nbgrader's submit on a class's hub, with a submission only its owner and the teacher read.

nbgrader 0.9.6 leaves a submission in the exchange's inbound folder as a folder of mode 0777
(so that the instructor can delete it) holding files of mode 0644: any account that learns
its name (the name is the student's, the assignment's, the time and a random part) may read
the work or put files into it. On a class's hub the inbound folder is the teacher's, with the
set-group-id bit (accounts.py), so a submission's folders, and the files copied into them,
belong to the teacher's group as they are made. :class:`CourseExchangeSubmit` then gives the
submission to that group alone: its folders 0770 (the teacher may remove them; the student,
who is not in that group, cannot keep the set-group-id bit), its files of that group 0640 (the
teacher reads them, as collect does). A file nbgrader writes after its copy (the time stamp)
has the student's group, and keeps its mode for the teacher to read: no other account reaches
it, since none may enter the folder. Where inbound gives no such group (another exchange), the
modes stay nbgrader's.
"""

import os
import stat

from nbgrader.exchange.default.submit import ExchangeSubmit

FOLDER_MODE, FILE_MODE = 0o2770, 0o640  # (the set-group-id bit is kept where it may be)


class CourseExchangeSubmit(ExchangeSubmit):
    def copy_files(self):
        super().copy_files()
        close_to_the_group(
            os.path.join(self.inbound_path, self.assignment_filename), self.inbound_path
        )


def close_to_the_group(submission, inbound):
    """Give the folder ``submission`` and all in it to the group of ``inbound`` alone, when
    inbound hands its group down (set-group-id) and the submission has it."""
    given = os.stat(inbound)
    if not given.st_mode & stat.S_ISGID or os.lstat(submission).st_gid != given.st_gid:
        return False
    for folder, _, files in os.walk(submission):
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode) and info.st_gid == given.st_gid:
                os.chmod(path, FILE_MODE)
    for folder, _, _ in os.walk(submission, topdown=False):
        if os.lstat(folder).st_gid == given.st_gid:
            os.chmod(folder, FOLDER_MODE)
    return True
