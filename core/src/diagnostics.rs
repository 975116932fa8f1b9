//! Problems in the user's input, as data: where (file, line), what, and what was skipped.
//! Bad input never aborts an assembly; it is reported here and the rest is still used.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The input was used, but something about it is worth knowing.
    #[default]
    Info,
    /// Part of the input was skipped (as pi would skip it) or replaced.
    Warning,
    /// pi itself would refuse or fail here; ctxlens went on with what it could use.
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The input file (session path, models.json, SKILL.md path, `args`, ...).
    pub file: String,
    /// 1-based line, when the problem has one.
    pub line: Option<u32>,
    pub message: String,
    /// What was left out because of it (`line 7`, `entry a1b2c3d4`, `skill foo`), if anything.
    pub skipped: Option<String>,
}

impl Diagnostic {
    pub fn new(
        severity: Severity,
        file: impl Into<String>,
        line: Option<u32>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            severity,
            file: file.into(),
            line,
            message: message.into(),
            skipped: None,
        }
    }

    pub fn warning(file: impl Into<String>, line: Option<u32>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, file, line, message)
    }

    pub fn error(file: impl Into<String>, line: Option<u32>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, file, line, message)
    }

    pub fn info(file: impl Into<String>, line: Option<u32>, message: impl Into<String>) -> Self {
        Self::new(Severity::Info, file, line, message)
    }

    pub fn skipping(mut self, what: impl Into<String>) -> Self {
        self.skipped = Some(what.into());
        self
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        write!(f, ": {}: {}", self.severity.as_str(), self.message)?;
        if let Some(s) = &self.skipped {
            write!(f, " (skipped: {s})")?;
        }
        Ok(())
    }
}
