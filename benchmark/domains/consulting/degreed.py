"""Learning (Degreed): courses, seats, enrollments, training history and certifications.

``enroll_employee`` appends ``ENR-2-nnnnnn`` (first unused from 000000) for
an existing course, without checking seats, prerequisites or a previous
enrollment. An enrollment without a completion date holds a seat;
``check_enrollment`` answers 99999 for a course without a seat limit.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, Field

from benchmark.domains import store
from benchmark.domains.consulting import models as m
from benchmark.domains.consulting.common import append_row, iso, reference_errors, require
from benchmark.domains.consulting.schema import sql
from guard.errors import NotFound
from guard.tools import ToolContext, ToolRegistry

__all__ = ["tools"]

tools = ToolRegistry(__name__)

UNLIMITED = 99999
"""What a course without a seat limit reports as available."""


class DegreedApiAction(StrEnum):
    SEARCH_COURSES = "search_courses"
    GET_COURSE_DETAILS = "get_course_details"
    CHECK_ENROLLMENT = "check_enrollment"
    ENROLL_EMPLOYEE = "enroll_employee"
    GET_TRAINING_HISTORY = "get_training_history"
    CHECK_CERTIFICATION_STATUS = "check_certification_status"
    GET_REQUIRED_TRAININGS = "get_required_trainings"


class CourseOut(BaseModel):
    id: str
    title: str
    cost: int
    training_category: str
    max_seats: int | None = None
    start_date: str | None = None
    end_date: str | None = None
    prerequisites: list[str] = Field(default_factory=list)


class CompletedTrainingOut(BaseModel):
    course_id: str


class CertificationOut(BaseModel):
    id: str
    employee_email: str
    certification_name: str
    issued_date: str
    expiry_date: str | None = None


class DegreedOut(BaseModel):
    courses: list[CourseOut] | None = None
    course_data: CourseOut | None = None
    available_seats: int | None = None
    success: bool | None = None
    completed_trainings: list[CompletedTrainingOut] | None = None
    certifications: list[CertificationOut] | None = None
    has_certification: bool | None = None
    required_courses: list[str] | None = None


def _course_out(row: dict[str, Any]) -> CourseOut:
    return CourseOut.model_validate(
        {**row, "start_date": iso(row["start_date"]), "end_date": iso(row["end_date"])}
    )


async def _course(ctx: ToolContext, course_id: str | None) -> dict[str, Any]:
    require(course_id, "course_id")
    course = await store.first_row(ctx.conn, sql["degreed_training_courses"], id=course_id)
    if course is None:
        raise NotFound(f"Course not found: {course_id}")
    return course


async def _search(ctx: ToolContext, keyword: str | None, category: m.TrainingCategory | None) -> DegreedOut:
    require(keyword, "keyword")
    needle = str(keyword).lower()
    found = [
        course
        for course in await store.all_rows(ctx.conn, sql["degreed_training_courses"])
        if needle in course["title"].lower()
    ]
    if category:
        found = [course for course in found if course["training_category"] == category.value]
    return DegreedOut(courses=[_course_out(course) for course in found])


async def _available_seats(ctx: ToolContext, course_id: str | None) -> DegreedOut:
    course = await _course(ctx, course_id)
    if course["max_seats"] is None:
        return DegreedOut(available_seats=UNLIMITED)
    enrollments = await store.all_rows(ctx.conn, sql["degreed_training_enrollments"], course_id=course["id"])
    taken = sum(1 for enrollment in enrollments if enrollment["completion_date"] is None)
    return DegreedOut(available_seats=course["max_seats"] - taken)


async def _enroll(ctx: ToolContext, email: str | None, course_id: str | None) -> DegreedOut:
    require(email, "email")
    course = await _course(ctx, course_id)
    await append_row(
        ctx,
        "degreed_training_enrollments",
        "ENR-2",
        m.TrainingEnrollment,
        employee_email=email,
        course_id=course["id"],
        completion_date=None,
    )
    return DegreedOut(success=True)


async def _history(ctx: ToolContext, email: str | None) -> DegreedOut:
    require(email, "email")
    enrollments = await store.all_rows(ctx.conn, sql["degreed_training_enrollments"], employee_email=email)
    certifications = await store.all_rows(ctx.conn, sql["degreed_certifications"], employee_email=email)
    return DegreedOut(
        completed_trainings=[
            CompletedTrainingOut(course_id=e["course_id"])
            for e in enrollments
            if e["completion_date"] is not None
        ],
        certifications=[
            CertificationOut.model_validate(
                {**c, "issued_date": iso(c["issued_date"]), "expiry_date": iso(c["expiry_date"])}
            )
            for c in certifications
        ],
    )


async def _has_certification(ctx: ToolContext, email: str | None, name: str | None) -> DegreedOut:
    require(email, "email")
    require(name, "certification_name")
    wanted = str(name).lower()
    certifications = await store.all_rows(ctx.conn, sql["degreed_certifications"], employee_email=email)
    return DegreedOut(
        has_certification=any(c["certification_name"].lower() == wanted for c in certifications)
    )


async def _required(ctx: ToolContext, client_id: str | None) -> DegreedOut:
    require(client_id, "client_id")
    client = await store.first_row(ctx.conn, sql["salesforce_crm_clients"], id=client_id)
    if client is None:
        raise NotFound(f"Client not found: {client_id}")
    return DegreedOut(required_courses=client["required_training_courses"])


@tools.tool(write=True)
async def degreed_api(
    ctx: ToolContext,
    action: Annotated[
        DegreedApiAction,
        Field(
            description="search_courses, get_course_details, check_enrollment, enroll_employee, "
            "get_training_history, check_certification_status or get_required_trainings"
        ),
    ],
    keyword: Annotated[str | None, Field(description="Words of the course title (search_courses)")] = None,
    category: Annotated[
        m.TrainingCategory | None,
        Field(description="must_have, nice_to_have or conference (search_courses, optional)"),
    ] = None,
    course_id: Annotated[
        str | None, Field(description="Course id (get_course_details, check_enrollment, enroll_employee)")
    ] = None,
    email: Annotated[
        str | None,
        Field(
            description="Employee email (enroll_employee, get_training_history, check_certification_status)"
        ),
    ] = None,
    certification_name: Annotated[
        str | None, Field(description="Certification name, any case (check_certification_status)")
    ] = None,
    client_id: Annotated[str | None, Field(description="Client id (get_required_trainings)")] = None,
) -> DegreedOut:
    """Training. search_courses (keyword, optional category); get_course_details (course_id): cost,
    category, seats, dates, prerequisites; check_enrollment (course_id): free seats (99999 if unlimited);
    enroll_employee (email, course_id); get_training_history (email): completed courses and all
    certifications; check_certification_status (email, certification_name); get_required_trainings
    (client_id): the client's required course ids."""
    with reference_errors("execute Degreed API action"):
        if action is DegreedApiAction.SEARCH_COURSES:
            return await _search(ctx, keyword, category)
        if action is DegreedApiAction.GET_COURSE_DETAILS:
            return DegreedOut(course_data=_course_out(await _course(ctx, course_id)))
        if action is DegreedApiAction.CHECK_ENROLLMENT:
            return await _available_seats(ctx, course_id)
        if action is DegreedApiAction.ENROLL_EMPLOYEE:
            return await _enroll(ctx, email, course_id)
        if action is DegreedApiAction.GET_TRAINING_HISTORY:
            return await _history(ctx, email)
        if action is DegreedApiAction.CHECK_CERTIFICATION_STATUS:
            return await _has_certification(ctx, email, certification_name)
        return await _required(ctx, client_id)
