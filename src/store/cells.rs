//! A row's cells read the same way whichever driver read the row: sqlx's (`AnyRow`, PostgreSQL and
//! SQLite through the pool) or rusqlite's (SQLite reads run on a connection's own thread,
//! [`super::lite`]). A decoder written against [`Cells`] serves both, so a read has one SQL text and
//! one decoder.

use crate::domain::Error;

/// A row whose cells can be read by column name.
pub(crate) trait Cells {
    fn cell<T: Cell>(&self, column: &str) -> Result<T, Error>;
}

/// A value a cell can hold.
pub(crate) trait Cell: Sized {
    fn from_any(row: &sqlx::any::AnyRow, column: &str) -> Result<Self, Error>;
    fn from_lite(row: &rusqlite::Row<'_>, column: &str) -> Result<Self, Error>;
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
    ($($t:ty),*) => {$(
        impl Cell for $t {
            fn from_any(row: &sqlx::any::AnyRow, column: &str) -> Result<Self, Error> {
                Ok(sqlx::Row::try_get(row, column)?)
            }
            fn from_lite(row: &rusqlite::Row<'_>, column: &str) -> Result<Self, Error> {
                row.get(column).map_err(|e| super::lite::error(e))
            }
        }
    )*};
}

cell!(String, Option<String>, i64, Option<i64>);
