# REML variance components of the crossed systems x topics model, the reference for
# gtheory's missing="reml" (tests/test_gtheory_unbalanced.py).
#
# Usage: Rscript lme4_reml.R INPUT.csv [INPUT.csv ...]
#   each INPUT is a long CSV with columns system, topic, score (absent rows = missing cells).
# Prints one JSON object per input on its own line:
#   {"file": ..., "var_system": ..., "var_topic": ..., "var_residual": ..., "mu": ..., "remlcrit": ...}
# The recorded numbers (lme4_reml.json) were produced with R 4.2, lme4 1.1-31 (Debian r-cran-lme4).
# The optimiser is run to tight tolerances so the optimum, not the stopping rule, is compared.
suppressPackageStartupMessages(library(lme4))
ctrl <- lmerControl(optimizer = "bobyqa",
                    optCtrl = list(rhobeg = 0.2, rhoend = 1e-12, maxfun = 1e5),
                    calc.derivs = FALSE)
for (f in commandArgs(trailingOnly = TRUE)) {
  d <- read.csv(f, colClasses = c("character", "character", "numeric"))
  d <- d[!is.na(d$score), ]
  m <- lmer(score ~ 1 + (1 | system) + (1 | topic), data = d, REML = TRUE, control = ctrl)
  vc <- as.data.frame(VarCorr(m))
  v <- setNames(vc$vcov, vc$grp)
  cat(sprintf('{"file": "%s", "var_system": %.17g, "var_topic": %.17g, "var_residual": %.17g, "mu": %.17g, "remlcrit": %.17g}\n',
              basename(f), v[["system"]], v[["topic"]], v[["Residual"]], fixef(m)[[1]], REMLcrit(m)))
}
