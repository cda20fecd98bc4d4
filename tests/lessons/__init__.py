"""The lessons themselves: the masters' table, the learner copies, their feedback pages."""
