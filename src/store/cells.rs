//! A row's cells read the same way whichever driver read the row: sqlx's (`AnyRow`, PostgreSQL and
//! SQLite through the pool) or rusqlite's (SQLite reads run on a connection's own thread,
//! [`super::lite`]). A decoder written against [`Cells`] serves both, so a read has one SQL text and
//! one decoder.

use super::sql::Value;
use crate::domain::Error;

/// A row whose cells can be read by column name.
pub trait Cells {
    fn cell<T: Cell>(&self, column: &str) -> Result<T, Error>;
}

/// A value a cell can hold.
pub trait Cell: Sized {
    fn from_any(row: &sqlx::any::AnyRow, column: &str) -> Result<Self, Error>;
    fn from_lite(row: &rusqlite::Row<'_>, column: &str) -> Result<Self, Error>;
    /// From a cell copied out of either driver ([`super::sql::Row`]); the error says what was found.
    fn from_value(value: &Value) -> Result<Self, String>;
}

impl Cells for sqlx::any::AnyRow {
    fn cell<T: Cell>(&self, column: &str) -> Result<T, Error> {
        T::from_any(self, column)
    }
}

impl Cells for rusqlite::Row<'_> {
    fn cell<T: Cell>(&self, column: &str) -> Result<T, Error> {
        T::from_lite(self, column)
    }
}

macro_rules! cell {
    ($($t:ty => |$v:ident| $e:expr),*) => {$(
        impl Cell for $t {
            fn from_any(row: &sqlx::any::AnyRow, column: &str) -> Result<Self, Error> {
                Ok(sqlx::Row::try_get(row, column)?)
            }
            fn from_lite(row: &rusqlite::Row<'_>, column: &str) -> Result<Self, Error> {
                row.get(column).map_err(|e| super::lite::error(e))
            }
            fn from_value($v: &Value) -> Result<Self, String> {
                $e
            }
        }
    )*};
}

fn text(value: &Value) -> Result<String, String> {
    match value {
        Value::Text(t) => Ok(t.clone()),
        other => Err(format!("expected text, found {other:?}")),
    }
}

fn int(value: &Value) -> Result<i64, String> {
    match value {
        Value::Int(n) => Ok(*n),
        Value::Bool(b) => Ok(i64::from(*b)),
        other => Err(format!("expected an integer, found {other:?}")),
    }
}

/// `None` for a null cell, else what `read` makes of it.
fn nullable<T>(value: &Value, read: fn(&Value) -> Result<T, String>) -> Result<Option<T>, String> {
    match value {
        Value::Null => Ok(None),
        v => read(v).map(Some),
    }
}

cell!(
    String => |v| text(v),
    Option<String> => |v| nullable(v, text),
    i64 => |v| int(v),
    Option<i64> => |v| nullable(v, int)
);

/// A boolean: PostgreSQL's `boolean`, SQLite's 0 or 1.
impl Cell for bool {
    fn from_any(row: &sqlx::any::AnyRow, column: &str) -> Result<Self, Error> {
        Ok(sqlx::Row::try_get(row, column)?)
    }
    fn from_lite(row: &rusqlite::Row<'_>, column: &str) -> Result<Self, Error> {
        row.get(column).map_err(super::lite::error)
    }
    fn from_value(value: &Value) -> Result<Self, String> {
        match value {
            Value::Bool(b) => Ok(*b),
            Value::Int(n) => Ok(*n != 0),
            other => Err(format!("expected a boolean, found {other:?}")),
        }
    }
}
