//! A statement the store runs on whichever connection holds it: sqlx's (PostgreSQL, and SQLite
//! through the pool) or, for SQLite writes, the writer's own rusqlite connection in the task that
//! writes ([`super::writer`], issue 26). A write function is written once against [`Sql`]: one SQL
//! text (`$1, $2, …`), its arguments bound by number, rows read back by column name ([`Row`], which
//! the [`Cells`] decoders read like any other row).
//!
//! The shape follows sqlx's so a statement reads as before: `sql("…").bind(a).execute(conn)`,
//! `.fetch_all`, `.fetch_optional`, `.fetch_one`; [`scalar`] for one column and [`tuple`] for a few.
//! Rows are copied out of the driver (a few cells each: these are point reads and writes, not
//! listings — a listing keeps sqlx's rows on the pool).

use super::cells::{Cell, Cells};
use super::Dialect;
use crate::domain::Error;
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection};
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

/// A value bound to a parameter. A null keeps the type it stands for (PostgreSQL types each
/// parameter; a text null compared with an integer column would be refused).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Null(Kind),
    Int(i64),
    Real(f64),
    Bool(bool),
    Text(String),
}

/// The type of a bound null.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Real,
    Bool,
    Text,
}

/// What can be bound to a parameter.
pub trait IntoArg {
    const KIND: Kind;
    fn into_arg(self) -> Arg;
}

macro_rules! arg {
    ($kind:ident: $($t:ty => |$v:ident| $e:expr),*) => {$(
        impl IntoArg for $t {
            const KIND: Kind = Kind::$kind;
            fn into_arg(self) -> Arg {
                let $v = self;
                Arg::$kind($e)
            }
        }
    )*};
}

arg!(Int: i64 => |v| v, &i64 => |v| *v, i32 => |v| i64::from(v), u32 => |v| i64::from(v));
arg!(Real: f64 => |v| v);
arg!(Bool: bool => |v| v);
arg!(Text: String => |v| v, &String => |v| v.clone(), &str => |v| v.to_owned(), &&str => |v| (*v).to_owned());

impl<T: IntoArg> IntoArg for Option<T> {
    const KIND: Kind = T::KIND;
    fn into_arg(self) -> Arg {
        match self {
            Some(v) => v.into_arg(),
            None => Arg::Null(T::KIND),
        }
    }
}

impl<'a, T> IntoArg for &'a Option<T>
where
    &'a T: IntoArg,
{
    const KIND: Kind = <&'a T>::KIND;
    fn into_arg(self) -> Arg {
        self.as_ref().into_arg()
    }
}

/// A statement and the values of its parameters.
#[derive(Clone, Debug)]
pub struct Query {
    pub text: std::borrow::Cow<'static, str>,
    pub args: Vec<Arg>,
}

/// A statement to run with [`Query::execute`] or to read rows with.
pub fn sql(text: impl Into<std::borrow::Cow<'static, str>>) -> Query {
    Query { text: text.into(), args: Vec::new() }
}

/// A statement that answers one column per row, read as `T`.
pub fn scalar<T: Cell>(text: impl Into<std::borrow::Cow<'static, str>>) -> Typed<T> {
    Typed { query: sql(text), decoded: PhantomData }
}

/// A statement whose rows are read as a tuple of their first columns.
pub(in crate::store) fn tuple<T: FromCells>(text: impl Into<std::borrow::Cow<'static, str>>) -> Typed<T> {
    Typed { query: sql(text), decoded: PhantomData }
}

/// What a statement changed.
#[derive(Clone, Copy, Debug)]
pub struct Done {
    rows_affected: u64,
}

impl Done {
    pub fn rows_affected(&self) -> u64 {
        self.rows_affected
    }
}

impl Query {
    pub fn bind(mut self, value: impl IntoArg) -> Self {
        self.args.push(value.into_arg());
        self
    }

    pub async fn execute(self, conn: &mut impl Sql) -> Result<Done, Error> {
        let (rows_affected, _) = conn.run(self, false).await?;
        Ok(Done { rows_affected })
    }

    pub async fn fetch_all(self, conn: &mut impl Sql) -> Result<Vec<Row>, Error> {
        Ok(conn.run(self, true).await?.1)
    }

    pub(in crate::store) async fn fetch_optional(self, conn: &mut impl Sql) -> Result<Option<Row>, Error> {
        Ok(self.fetch_all(conn).await?.into_iter().next())
    }

    pub async fn fetch_one(self, conn: &mut impl Sql) -> Result<Row, Error> {
        self.fetch_optional(conn).await?.ok_or_else(|| Error::Storage("the statement returned no row".into()))
    }
}

/// A [`Query`] whose rows are decoded as `T`.
#[derive(Debug)]
pub struct Typed<T> {
    query: Query,
    decoded: PhantomData<fn() -> T>,
}

impl<T: FromCells> Typed<T> {
    pub fn bind(mut self, value: impl IntoArg) -> Self {
        self.query = self.query.bind(value);
        self
    }

    pub async fn fetch_all(self, conn: &mut impl Sql) -> Result<Vec<T>, Error> {
        self.query.fetch_all(conn).await?.iter().map(T::from_cells).collect()
    }

    pub(in crate::store) async fn fetch_optional(self, conn: &mut impl Sql) -> Result<Option<T>, Error> {
        self.query.fetch_optional(conn).await?.as_ref().map(T::from_cells).transpose()
    }

    pub async fn fetch_one(self, conn: &mut impl Sql) -> Result<T, Error> {
        T::from_cells(&self.query.fetch_one(conn).await?)
    }
}

/// A row's first columns as a value ([`scalar`]) or a tuple ([`tuple`]).
pub trait FromCells: Sized {
    fn from_cells(row: &Row) -> Result<Self, Error>;
}

impl<T: Cell> FromCells for T {
    fn from_cells(row: &Row) -> Result<Self, Error> {
        row.try_get(0)
    }
}

impl<A: Cell, B: Cell> FromCells for (A, B) {
    fn from_cells(row: &Row) -> Result<Self, Error> {
        Ok((row.try_get(0)?, row.try_get(1)?))
    }
}

impl<A: Cell, B: Cell, C: Cell> FromCells for (A, B, C) {
    fn from_cells(row: &Row) -> Result<Self, Error> {
        Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))
    }
}

/// A cell's value as the database gave it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Bool(bool),
    Text(String),
    Blob(Vec<u8>),
}

/// A row read by a [`Query`]: its cells, by column name or position.
#[derive(Clone, Debug)]
pub struct Row {
    columns: Arc<[String]>,
    values: Vec<Value>,
}

impl Row {
    /// The cell of `column` (a name, or a position from 0).
    pub fn try_get<T: Cell>(&self, column: impl Column) -> Result<T, Error> {
        let index = column.index(&self.columns).ok_or_else(|| Error::Storage(format!("no column {column:?} in the row")))?;
        T::from_value(&self.values[index]).map_err(|why| Error::Storage(format!("column {column:?}: {why}")))
    }
}

/// A column by name or by position.
pub trait Column: std::fmt::Debug + Copy {
    fn index(self, columns: &[String]) -> Option<usize>;
}

impl Column for &str {
    fn index(self, columns: &[String]) -> Option<usize> {
        columns.iter().position(|c| c == self)
    }
}

impl Column for usize {
    fn index(self, columns: &[String]) -> Option<usize> {
        (self < columns.len()).then_some(self)
    }
}

impl Cells for Row {
    fn cell<T: Cell>(&self, column: &str) -> Result<T, Error> {
        self.try_get(column)
    }
}

/// A connection a [`Query`] runs on.
pub trait Sql: Send {
    /// Runs `query`; answers the rows it changed and, when `rows`, the rows it returned.
    fn run(&mut self, query: Query, rows: bool) -> impl Future<Output = Result<(u64, Vec<Row>), Error>> + Send;
    /// The database behind the connection, where the SQL differs.
    fn dialect(&self) -> Dialect;
}

impl Sql for AnyConnection {
    fn run(&mut self, query: Query, rows: bool) -> impl Future<Output = Result<(u64, Vec<Row>), Error>> + Send {
        any_run(self, query, rows)
    }
    fn dialect(&self) -> Dialect {
        Dialect::of(self)
    }
}

impl Sql for PoolConnection<Any> {
    fn run(&mut self, query: Query, rows: bool) -> impl Future<Output = Result<(u64, Vec<Row>), Error>> + Send {
        any_run(self, query, rows)
    }
    fn dialect(&self) -> Dialect {
        Dialect::of(self)
    }
}

impl<S: Sql> Sql for &mut S {
    fn run(&mut self, query: Query, rows: bool) -> impl Future<Output = Result<(u64, Vec<Row>), Error>> + Send {
        (**self).run(query, rows)
    }
    fn dialect(&self) -> Dialect {
        (**self).dialect()
    }
}

/// Runs `query` through sqlx.
pub(in crate::store) async fn any_run(conn: &mut AnyConnection, query: Query, rows: bool) -> Result<(u64, Vec<Row>), Error> {
    use sqlx::{Column, Row as _, ValueRef};
    let mut q = sqlx::query::<Any>(&query.text);
    for arg in query.args {
        q = match arg {
            Arg::Null(Kind::Int) => q.bind(None::<i64>),
            Arg::Null(Kind::Real) => q.bind(None::<f64>),
            Arg::Null(Kind::Bool) => q.bind(None::<bool>),
            Arg::Null(Kind::Text) => q.bind(None::<String>),
            Arg::Int(v) => q.bind(v),
            Arg::Real(v) => q.bind(v),
            Arg::Bool(v) => q.bind(v),
            Arg::Text(v) => q.bind(v),
        };
    }
    if !rows {
        return Ok((q.execute(conn).await?.rows_affected(), Vec::new()));
    }
    let found = q.fetch_all(conn).await?;
    let Some(first) = found.first() else { return Ok((0, Vec::new())) };
    let columns: Arc<[String]> = first.columns().iter().map(|c| c.name().to_owned()).collect();
    let mut out = Vec::with_capacity(found.len());
    for row in &found {
        let mut values = Vec::with_capacity(columns.len());
        for i in 0..columns.len() {
            use sqlx::any::AnyTypeInfoKind as K;
            let raw = row.try_get_raw(i)?;
            let value = if raw.is_null() {
                Value::Null
            } else {
                match raw.type_info().kind() {
                    K::Null => Value::Null,
                    K::Bool => Value::Bool(row.try_get(i)?),
                    K::SmallInt | K::Integer | K::BigInt => Value::Int(row.try_get(i)?),
                    K::Real | K::Double => Value::Real(row.try_get(i)?),
                    K::Text => Value::Text(row.try_get(i)?),
                    K::Blob => Value::Blob(row.try_get(i)?),
                }
            };
            values.push(value);
        }
        out.push(Row { columns: columns.clone(), values });
    }
    Ok((0, out))
}

/// Runs `query` on a rusqlite connection, in the calling thread; one statement counted.
pub(in crate::store) fn lite_run(conn: &rusqlite::Connection, query: &Query, rows: bool) -> Result<(u64, Vec<Row>), Error> {
    use super::lite::error;
    use rusqlite::types::ValueRef;
    super::statements::ran(1);
    // What sqlx logs at `debug` for its statements (target `sqlx::query`), for these at `trace`.
    tracing::trace!(target: "approval_console::sql", statement = %query.text);
    let mut statement = conn.prepare_cached(&query.text).map_err(error)?;
    bind(&mut statement, &query.args)?;
    let columns: Arc<[String]> = if rows { statement.column_names().into_iter().map(str::to_owned).collect() } else { Arc::from([]) };
    let mut found = statement.raw_query();
    let mut out = Vec::new();
    while let Some(row) = found.next().map_err(error)? {
        if !rows {
            continue;
        }
        let mut values = Vec::with_capacity(columns.len());
        for i in 0..columns.len() {
            values.push(match row.get_ref(i).map_err(error)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(v) => Value::Int(v),
                ValueRef::Real(v) => Value::Real(v),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::Blob(b.to_vec()),
            });
        }
        out.push(Row { columns: columns.clone(), values });
    }
    drop(found);
    Ok((conn.changes(), out))
}

/// Binds `args` to the statement's parameters by their number: `$2` may come before `$1` in the
/// text and a number may appear twice (`?` takes the next number, as in SQLite). A parameter
/// without its argument is an error, never a silent null.
pub(crate) fn bind(statement: &mut rusqlite::CachedStatement<'_>, args: &[impl rusqlite::ToSql]) -> Result<(), Error> {
    use super::lite::error;
    for index in 1..=statement.parameter_count() {
        // SQLite numbers every parameter; `$N` names it, an anonymous `?` is its index.
        let number = match statement.parameter_name(index) {
            Some(name) => name.trim_start_matches(['$', '?']).parse::<usize>().ok(),
            None => Some(index),
        };
        let arg = number
            .and_then(|n| n.checked_sub(1))
            .and_then(|n| args.get(n))
            .ok_or_else(|| Error::Storage(format!("no value for parameter {index} of a statement ({} given)", args.len())))?;
        statement.raw_bind_parameter(index, arg).map_err(error)?;
    }
    Ok(())
}

impl rusqlite::ToSql for Arg {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Arg::Null(_) => ToSqlOutput::Borrowed(ValueRef::Null),
            Arg::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Arg::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Arg::Bool(v) => ToSqlOutput::Borrowed(ValueRef::Integer(i64::from(*v))),
            Arg::Text(v) => ToSqlOutput::Borrowed(ValueRef::Text(v.as_bytes())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Db;

    /// On SQLite's writer and on sqlx's pool alike: parameters bound by their number wherever the
    /// text names them (`?` taking the next), nulls bound, rows read by name and position; a
    /// parameter without a value is refused, not bound as null.
    #[tokio::test]
    async fn a_statement_binds_and_reads_the_same_on_both_drivers() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).await.unwrap();
        let mut tx = db.begin_write().await.unwrap();
        let mut pooled = db.pool().acquire().await.unwrap();
        let text = "SELECT $2 AS b, $1 AS a, $2 || $1 AS ba, $3 AS absent, $4 AS n, $5 AS t";
        let query = || sql(text).bind("one").bind("two").bind(None::<&str>).bind(7_i64).bind(true);
        for rows in [query().fetch_all(&mut tx).await.unwrap(), query().fetch_all(&mut pooled).await.unwrap()] {
            let row = &rows[0];
            assert_eq!(row.try_get::<String>("b").unwrap(), "two");
            assert_eq!(row.try_get::<String>(1).unwrap(), "one");
            assert_eq!(row.try_get::<String>("ba").unwrap(), "twoone");
            assert_eq!(row.try_get::<Option<String>>("absent").unwrap(), None);
            assert_eq!((row.try_get::<i64>("n").unwrap(), row.try_get::<bool>("t").unwrap()), (7, true));
            assert!(row.try_get::<i64>("b").is_err(), "text is not read as a number");
            assert!(row.try_get::<String>("no_such_column").is_err());
        }
        let anonymous = sql("SELECT ? AS x, ? AS y").bind(1_i64).bind(2_i64).fetch_one(&mut tx).await.unwrap();
        assert_eq!((anonymous.try_get::<i64>("x").unwrap(), anonymous.try_get::<i64>("y").unwrap()), (1, 2));
        let missing = sql("SELECT $1 AS a, $2 AS b").bind("only one").fetch_one(&mut tx).await;
        assert!(matches!(&missing, Err(Error::Storage(m)) if m.contains("no value for parameter")), "{missing:?}");
        let changed =
            sql("INSERT INTO settings (key, value, updated_at) VALUES ($1, '{}', 'now')").bind("k").execute(&mut tx).await.unwrap();
        assert_eq!(changed.rows_affected(), 1);
        drop(tx);
        drop(pooled);
        db.close().await;
    }
}
